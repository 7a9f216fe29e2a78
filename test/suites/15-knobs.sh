#!/usr/bin/env bash
# Knobs, interposition paths and application-level isolation.
cd "$(dirname "$0")/../.." || exit 1
. test/suites/lib.sh

count_lines() { printf '%s\n' "$OUT" | grep -c -- "$1"; }

# A bad TOPOBCAST_ALGORITHM: one message from rank 0, default used, data right.
run_mpi 3 60 TOPOBCAST_ALGORITHM=bogus TOPOBCAST_STATS=1 -- "$BUILD/bin/bcast_app"
check "bad_algorithm one warning" [ "$(grep -v "^topobcast: stats:" <<<"$OUT" | grep -c -- "TOPOBCAST_ALGORITHM='bogus': unknown algorithm")" -eq 1 ]
check "bad_algorithm falls back to default" grep -q "algorithm=default calls=7" <<<"$OUT"
check "bad_algorithm: the stats count every call as a fallback, saying why" \
    grep -q "^topobcast: stats: fallback calls=7 (TOPOBCAST_ALGORITHM='bogus': unknown algorithm 'bogus'" <<<"$OUT"
check "bad_algorithm application exit status" [ "$RC" -eq 0 ]
check "bad_algorithm data correct" grep -q "all data correct" <<<"$OUT"

run_mpi 2 60 TOPOBCAST_ALGORITHM=pipeline:segment=lots -- "$BUILD/bin/bcast_app"
check "bad_parameter names the parameter" [ "$(count_lines "segment=lots: expected a byte count")" -eq 1 ]
run_mpi 2 60 TOPOBCAST_ALGORITHM=binomial:radix=3 -- "$BUILD/bin/bcast_app"
check "parameter of another algorithm rejected" [ "$(count_lines "algorithm 'binomial' has no parameter 'radix'")" -eq 1 ]

run_mpi 2 60 TOPOBCAST_STATS=maybe TOPOBCAST_ALGORITHM=binomial -- "$BUILD/bin/bcast_app"
check "bad_boolean one warning" [ "$(count_lines "TOPOBCAST_STATS='maybe' is not a boolean")" -eq 1 ]
check "bad_boolean application unaffected" [ "$RC" -eq 0 ]

# Disabled: nothing counted, nothing printed, data right.
run_mpi 3 60 TOPOBCAST_DISABLE=1 TOPOBCAST_STATS=1 TOPOBCAST_ALGORITHM=flat -- "$BUILD/bin/bcast_app"
check "disable passes through (no stats)" bash -c '! grep -q "topobcast: stats" <<<"$1"' _ "$OUT"
check "disable data correct" grep -q "all data correct" <<<"$OUT"
run_mpi 3 60 TOPOBCAST_DISABLE=1 TOPOBCAST_VERBOSE=1 -- "$BUILD/bin/bcast_app"
check "disable with TOPOBCAST_VERBOSE=1 says so, once per job" \
    [ "$(count_lines "TOPOBCAST_DISABLE is set on world rank 0: every broadcast of the job goes to MPI's own")" -eq 1 ]

# A profiling tool preloaded first (test/tool/ptool.c: its MPI_Init and
# MPI_Finalize call the PMPI_ ones, which the library serves too): world
# rank 0's settings still hold for the whole job, as without the tool, and
# ranks that differ in TOPOBCAST_DISABLE or TOPOBCAST_STATS end (before the
# library served PMPI_Init, one rank called MPI_Bcast while the others
# agreed: rc 124).  Rank 1 disabled: every call falls back, one warning;
# TOPOBCAST_STATS on rank 0 only: every rank counts.
TOOL=$BUILD/test/tool/libtb_ptool.so
if [ -e "$TOOL" ]; then
    OUT=$(timeout 60 mpiexec -n 1 env LD_PRELOAD="$TOOL:$LIB" TOPOBCAST_ALGORITHM=binomial TOPOBCAST_STATS=1 "$BUILD/bin/bcast_app" : \
        -n 1 env LD_PRELOAD="$TOOL:$LIB" TOPOBCAST_ALGORITHM=binomial TOPOBCAST_DISABLE=1 "$BUILD/bin/bcast_app" : \
        -n 1 env LD_PRELOAD="$TOOL:$LIB" TOPOBCAST_ALGORITHM=binomial "$BUILD/bin/bcast_app" 2>&1)
    RC=$?
    check "a tool first, TOPOBCAST_DISABLE on rank 1 only: ends (status $RC), data right, one warning, every call fell back" \
        bash -c '[ "$1" -eq 0 ] && grep -q "all data correct" <<<"$2" &&
                 [ "$(grep -c "^topobcast: ranks have different settings" <<<"$2")" -eq 1 ] &&
                 grep -q "^topobcast: stats: fallback calls=7 (ranks have different settings" <<<"$2" &&
                 ! grep -q "algorithm=binomial" <<<"$2" && grep -q "^ptool: report from 3 ranks" <<<"$2"' _ "$RC" "$OUT"
    OUT=$(timeout 60 mpiexec -n 1 env LD_PRELOAD="$TOOL:$LIB" TOPOBCAST_ALGORITHM=binomial TOPOBCAST_STATS=1 "$BUILD/bin/bcast_app" : \
        -n 2 env LD_PRELOAD="$TOOL:$LIB" TOPOBCAST_ALGORITHM=binomial "$BUILD/bin/bcast_app" 2>&1)
    RC=$?
    check "a tool first, TOPOBCAST_STATS on rank 0 only: ends (status $RC), data right, every rank's counts" \
        bash -c '[ "$1" -eq 0 ] && grep -q "all data correct" <<<"$2" && ! grep -q "^topobcast: stats: counts of world rank 0 only" <<<"$2" &&
                 grep -q "^topobcast: stats: algorithm=binomial calls=7 " <<<"$2"' _ "$RC" "$OUT"
else
    notok "the profiling tool is built ($TOOL missing: make tests)"
fi

# Where the library's part of MPI_Init does not run (a program that calls
# PMPI_Init itself, linked with the static library, which defines no
# PMPI_ functions), each process follows its own settings: ranks that
# differ in TOPOBCAST_DISABLE still end, every call of rank 0 falls back
# (one warning), and TOPOBCAST_STATS gives rank 0's counts, said so.
OWN_INIT=$BUILD/test/bcast_app_pmpi_init
mkdir -p "$BUILD/test"
if ${TB_MPICC:-$(command -v mpicc.mpich || echo mpicc)} -DMPI_Init=PMPI_Init examples/bcast_app.c -o "$OWN_INIT" \
    "$BUILD/lib/libtopobcast.a" -lyaml -lhwloc -lm -pthread 2>"$BUILD/test/link-own-init.log"; then
    OUT=$(timeout 60 mpiexec -n 1 env TOPOBCAST_ALGORITHM=binomial TOPOBCAST_STATS=1 "$OWN_INIT" : \
        -n 1 env TOPOBCAST_ALGORITHM=binomial TOPOBCAST_DISABLE=1 "$OWN_INIT" : \
        -n 1 env TOPOBCAST_ALGORITHM=binomial "$OWN_INIT" 2>&1)
    RC=$?
    check "PMPI_Init called by the program (static library), TOPOBCAST_DISABLE on rank 1 only: ends (status $RC), data right, one warning, rank 0's calls fell back, its counts only" \
        bash -c '[ "$1" -eq 0 ] && grep -q "all data correct" <<<"$2" &&
                 [ "$(grep -c "^topobcast: TOPOBCAST_DISABLE is set on processes of a communicator" <<<"$2")" -eq 1 ] &&
                 grep -q "^topobcast: stats: counts of world rank 0 only (the library.s MPI_Init did not run" <<<"$2" &&
                 grep -q "^topobcast: stats: fallback calls=[1-9][0-9]* (TOPOBCAST_DISABLE is set" <<<"$2" &&
                 ! grep -q "algorithm=binomial" <<<"$2"' _ "$RC" "$OUT"
else
    notok "a program calling PMPI_Init links with the static library ($(head -3 "$BUILD/test/link-own-init.log"))"
fi

# Forced algorithm really runs: the stats count every broadcast for it.
run_mpi 3 60 TOPOBCAST_ALGORITHM=knomial:radix=3 TOPOBCAST_STATS=1 -- "$BUILD/bin/bcast_app"
check "forced algorithm counted" grep -q "algorithm=knomial calls=7" <<<"$OUT"

# Linking -ltopobcast instead of LD_PRELOAD.
LINKED=$BUILD/test/bcast_app_linked
mkdir -p "$BUILD/test"
if ${TB_MPICC:-$(command -v mpicc.mpich || echo mpicc)} examples/bcast_app.c -o "$LINKED" -L"$BUILD/lib" -ltopobcast -Wl,-rpath,"$(pwd)/$BUILD/lib" 2>"$BUILD/test/link.log"; then
    OUT=$(timeout 60 mpiexec -n 2 env TOPOBCAST_ALGORITHM=binary TOPOBCAST_STATS=1 "$LINKED" 2>&1)
    check "linked -ltopobcast intercepts" grep -q "algorithm=binary calls=7" <<<"$OUT"
else
    notok "linked -ltopobcast builds ($(head -3 "$BUILD/test/link.log"))"
fi

# pkg-config file describes the build.
check "pkg-config file" grep -q "^Libs: .*-ltopobcast" "$BUILD/lib/pkgconfig/${TB_PC_NAME:-topobcast}.pc"

# Application-level isolation, churn and threads, under several algorithms.
for alg in binomial "pipeline:segment=4096" split_binary "scatter_allgather:allgather=recursive_doubling"; do
    for np in 2 3 4; do
        run_mpi "$np" 120 TOPOBCAST_ALGORITHM="$alg" -- "$T/isolation"
        printf '%s\n' "$OUT" | grep -E '^(not )?ok ' | sed "s/\$/ [$alg]/"
        [ "$RC" -eq 0 ] || notok "isolation $alg P=$np exited $RC"
    done
done

# More than INT_MAX bytes through MPI_Bcast_c, chunked by the engine.
run_mpi 2 300 TOPOBCAST_ALGORITHM=binomial TOPOBCAST_STATS=1 -- "$T/large_count"
printf '%s\n' "$OUT" | grep -E '^(not )?ok '
if grep -q "^ok large_count MPI_Bcast_c of" <<<"$OUT"; then
    # 2049 MiB + INT_MAX + 4099 bytes
    check "large_count: both calls intercepted" grep -q "algorithm=binomial calls=2 bytes=4296019970" <<<"$OUT"
else
    check "large_count, MPI 3.1: MPI_Bcast over INT_MAX bytes is MPI's own, counted as a fallback" \
        grep -q "^topobcast: stats: fallback calls=1 (more than INT_MAX bytes in one call" <<<"$OUT"
    check "large_count, MPI 3.1: said once, since an algorithm was forced" \
        [ "$(count_lines "a broadcast of 2148532224 bytes: more than INT_MAX")" -eq 1 ]
fi

# MPI-4 sessions: a communicator from MPI_Comm_create_from_group.  In a
# process that never calls MPI_Init the library has no MPI_COMM_WORLD: every
# call is MPI's own, with one warning per job (no abort in
# MPI_Comm_set_attr(MPI_COMM_SELF)).  Beside MPI_Init it runs the algorithm.
run_mpi 3 120 TOPOBCAST_ALGORITHM=pipeline:segment=4096 TOPOBCAST_STATS=1 -- "$T/sessions"
if grep -q "^skip sessions" <<<"$OUT"; then
    ok "sessions: $(grep "^skip sessions" <<<"$OUT" | sed 's/^skip sessions: //')"
else
    check "sessions without MPI_Init: exit status 0 (no abort)" [ "$RC" -eq 0 ]
    check "sessions without MPI_Init: all four kinds of broadcast correct" [ "$(grep -c "^ok sessions" <<<"$OUT")" -eq 4 ]
    check "sessions without MPI_Init: one warning in the job" \
        [ "$(count_lines "MPI_Bcast in a process that has not called MPI_Init (MPI-4 sessions)")" -eq 1 ]
    printf '%s\n' "$OUT" | grep "^not ok"
    run_mpi 3 120 TOPOBCAST_ALGORITHM=pipeline:segment=4096 TOPOBCAST_STATS=1 -- "$T/sessions" --with-init
    check "sessions beside MPI_Init: exit status 0" [ "$RC" -eq 0 ]
    check "sessions beside MPI_Init: all four kinds of broadcast correct" [ "$(grep -c "^ok sessions" <<<"$OUT")" -eq 4 ]
    # 73 broadcasts, 12 of them of 0 bytes (nothing to run, not counted)
    check "sessions beside MPI_Init: the library ran every non-empty broadcast" \
        grep -q "algorithm=pipeline calls=61 " <<<"$OUT"
    check "sessions beside MPI_Init: no warning" [ "$(count_lines "topobcast: MPI_Bcast in a process")" -eq 0 ]
fi

# MPI_BOTTOM with a type of absolute addresses (test/mpi/bottom.c): the
# root packs from it and the others unpack into it.  MPICH 4.0.2's MPI_Pack
# refuses a NULL buffer, which aborted every library algorithm here.
for alg in binomial "pipeline:segment=3001" scatter_allgather dbt "interpipe:levels=node,base=binomial/shm"; do
    run_mpi 3 120 TOPOBCAST_ALGORITHM="$alg" TOPOBCAST_STATS=1 -- "$T/bottom"
    check "MPI_BOTTOM [$alg]: exit status 0" [ "$RC" -eq 0 ]
    printf '%s\n' "$OUT" | grep -E '^(not )?ok bottom' | sed "s/\$/ [$alg]/"
done

# Erroneous and odd calls answered as MPI alone answers them (test/mpi/errors.c):
# first without the library, so the program's expectations are MPI's own.
OUT=$(timeout 60 mpiexec -n 3 "$T/errors" 2>&1)
RC=$?
check "errors without the library: status 0 (the expectations are MPI's)" [ "$RC" -eq 0 ]
printf '%s\n' "$OUT" | grep -E '^(not )?ok errors' | sed 's/$/ [MPI alone]/'
for alg in "" binomial "pipeline:segment=4096" scatter_allgather dbt; do
    run_mpi 3 60 ${alg:+TOPOBCAST_ALGORITHM=$alg} -- "$T/errors"
    check "errors [${alg:-table}]: exit status 0" [ "$RC" -eq 0 ]
    printf '%s\n' "$OUT" | grep -E '^(not )?ok errors' | sed "s/\$/ [${alg:-table}]/"
done

# Intercommunicator broadcasts are MPI's own: the statistics count them so,
# once each (at MPI_ROOT), and say why.
run_mpi 4 60 TOPOBCAST_STATS=1 -- "$T/bcast_matrix" --comms=inter --counts=0,7 --types=int,vecmix --sequences=0
n_inter=$(sed -n 's/^# bcast_matrix intercommunicator broadcasts: \([0-9][0-9]*\)$/\1/p' <<<"$OUT")
check "intercommunicator broadcasts counted as MPI's own (${n_inter:-?} made)" \
    grep -q "^topobcast: stats: algorithm=default calls=${n_inter:-x} " <<<"$OUT"
check "intercommunicator broadcasts counted as fallbacks, saying why" \
    grep -q "^topobcast: stats: fallback calls=${n_inter:-x} (broadcasts on intercommunicators" <<<"$OUT"

# Every root in turn under a table that gives each message size its own
# algorithm (test/mpi/many_roots.c): 6 algorithms x 5 roots are more
# (root, algorithm) pairs than a communicator keeps schedules for (16), so
# schedules are built again, and those of the algorithms whose plan rotates
# with the root are renumbered from one kept plan for root 0.  Every byte is
# checked, and the statistics must count each rule's algorithm for every
# call of its size.
RD=$(mktemp -d)
cat >"$RD/roots.yaml" <<'YAML'
topobcast: 1
selection:
  - {bytes: 0-100, algorithm: "binomial"}
  - {bytes: 101-1000, algorithm: "knomial:radix=3"}
  - {bytes: 1001-10000, algorithm: "dbt:segment=1000"}
  - {bytes: 10001-50000, algorithm: "scatter_allgather"}
  - {bytes: 50001-100000, algorithm: "circulant:segment=8192"}
  - {algorithm: "interpipe:segment=16384"}
YAML
for mode in "" --ibcast; do
    run_mpi 5 120 TOPOBCAST_CONFIG="$RD/roots.yaml" TOPOBCAST_STATS=1 -- "$T/many_roots" \
        --counts 7,500,5000,20000,70000,150000 --rounds 2 $mode
    check "many roots${mode:+ $mode}: exit status 0" [ "$RC" -eq 0 ]
    printf '%s\n' "$OUT" | grep -E '^(not )?ok many_roots' | sed "s/\$/${mode:+ [$mode]}/"
    for alg in binomial knomial dbt scatter_allgather circulant interpipe; do
        check "many roots${mode:+ $mode}: $alg ran all 20 of its calls" \
            grep -q "^topobcast: stats: algorithm=$alg calls=20 " <<<"$OUT"
    done
done
rm -rf "$RD"
