/* The two layers at which the library serves each MPI function it defines.
 *
 *   MPI_X   (TB_ABOVE) what the program calls: the library comes first, or
 *           after a tool that wraps only other functions.  What it leaves
 *           goes to the next layer's MPI_X: a tool preloaded (or linked)
 *           after it, else MPI's own (base/pmpi.h, tb_next).
 *   PMPI_X  (TB_BELOW) what a tool preloaded before the library calls from
 *           its own MPI_X, and what MPI's Fortran bindings call.  What it
 *           leaves goes to MPI's own PMPI_X (tb_mpi).  Only in the shared
 *           library (built with TB_PMPI_LAYER=1): a static library or a
 *           SimGrid SMPI program defining PMPI_X would clash with MPI's own
 *           or take it over for the whole program.
 *
 * One body serves both: TB_ENTRY(X, (PARAMS), (ARGS), FAST) { BODY }
 * defines MPI_X and, in the shared library, PMPI_X, each running BODY with
 * `layer` set (and `caller`, the entry point's return address), and
 * TB_DOWN(X, ARGS) in the body passes the call on, unchanged, to what lies
 * below that layer.  FAST, an expression of the
 * arguments (0 where there is none), says the library surely leaves the
 * call: MPI_X and PMPI_X then jump straight to MPI, without a frame (the
 * common small MPI_Bcast: `make bench-intercept`), unless a tool sits
 * below MPI_X.  A call that reaches either layer while one the library
 * passed to a tool runs on the same thread (base/pmpi.h, tb_passed_down)
 * goes straight to MPI.  Every served function returns int. */
#ifndef TB_INTERCEPT_LAYER_H
#define TB_INTERCEPT_LAYER_H

#include "base/pmpi.h"

#define TB_EXPORT __attribute__((visibility("default")))

typedef enum { TB_ABOVE, TB_BELOW } tb_layer;

#ifndef TB_PMPI_LAYER
#define TB_PMPI_LAYER 0
#endif

#define TB_UNPAREN(...) __VA_ARGS__

/* The body's own arguments: its layer, and where the entry point was
 * called from (the return address: nbc.c's calls from Fortran bindings). */
#define TB_BODY_PARAMS(params) tb_layer layer, const void *caller __attribute__((unused)), TB_UNPAREN params
#define TB_BODY_ARGS(l, args) l, __builtin_return_address(0), TB_UNPAREN args

#if TB_PMPI_LAYER
#define TB_ENTRY_BELOW(f, params, args, fast)                                                                 \
    TB_EXPORT int PMPI_##f params;                                                                            \
    int PMPI_##f params                                                                                       \
    {                                                                                                         \
        return tb_passed_down || (fast) ? tb_mpi.f args : f##_at(TB_BODY_ARGS(TB_BELOW, args));               \
    }
#else
#define TB_ENTRY_BELOW(f, params, args, fast)
#endif

/* The body is a function of its own, so that the fast path, a jump to
 * MPI, takes no frame (an inlined body would give the whole entry point
 * one). */
#define TB_ENTRY(f, params, args, fast)                                                                       \
    static __attribute__((noinline)) int f##_at(TB_BODY_PARAMS(params));                                      \
    TB_EXPORT int MPI_##f params;                                                                             \
    int MPI_##f params                                                                                        \
    {                                                                                                         \
        if (tb_passed_down || ((fast) && !tb_next.f))                                                         \
            return tb_mpi.f args;                                                                             \
        return f##_at(TB_BODY_ARGS(TB_ABOVE, args));                                                          \
    }                                                                                                         \
    TB_ENTRY_BELOW(f, params, args, fast)                                                                     \
    static __attribute__((noinline)) int f##_at(TB_BODY_PARAMS(params))

/* Inside a TB_ENTRY body: the call passed on to the layer below this one. */
#define TB_DOWN(f, ...) (layer == TB_BELOW ? tb_mpi.f(__VA_ARGS__) : TB_PASS_NEXT(f, __VA_ARGS__))

#endif
