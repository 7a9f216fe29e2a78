# shellcheck shell=bash disable=SC2034
# (SC2034: the arrays are used by the scripts that source this file.)
# smpirun options shared by every SMPI script and suite.  Source it, then:
#   smpirun "${SMPI_OPTS[@]}" -platform P.xml -hostfile H.txt -np N PROG ARGS
# (smpirun takes --cfg=/--log= before the program; after it they are taken
# away from the program's arguments too.)  Values were checked against
# SimGrid 3.32 here; the figures they produce are in test/platforms/README.md.
#
# Per-message CPU costs.  SMPI's send/receive overheads (smpi/os, smpi/ois,
# smpi/or) default to zero, so a flat tree whose root posts 511 sends costs
# nothing more than one send and wide trees look free.  Real MPI stacks
# spend ~0.2 us of CPU per small message on each side (OSU latency minus wire
# latency on EDR/HDR InfiniBand and shared memory), plus a copy into/out of
# the eager buffer; we charge 0.2 us + 0.05 ns/byte (a 20 GB/s memcpy) on
# both sides of messages below 64 KiB, and 0.2 us flat above (rendezvous is
# zero-copy).  Format "min_size:seconds:seconds_per_byte[;...]", the section
# with the largest min_size <= the message size applies.  Measured here:
# SMPI charges os/or only to messages below smpi/send-is-detached-thresh, but
# ois to every MPI_Isend whatever its size -- a per-byte term on large
# messages would add 52 us to each 1 MiB Isend.  The rendezvous handshake of
# large messages is modelled by the latency factor below instead.  A section
# applies to sizes above its boundary (SimGrid's factor lookup returns the
# previous section while size <= boundary), and the protocol thresholds below
# are "size < thresh is eager", so the flat section starts after 65535: a
# 65536-byte message is rendezvous in every respect.  With the boundary at
# 65536 it went by rendezvous but paid the eager copies (2 ranks of one
# BETZY-like socket, one message: 65535 B 15.55 us, 65536 B 11.97 us, 65537 B
# 8.69 us), and 64 KiB segments priced as rendezvous by the tuner's model
# measured up to 2x their prediction.
SMPI_MSG_COST='0:2e-7:5e-11;65535:2e-7:0'

SMPI_OPTS=(
    # Globals are privatised per rank by loading a copy of the program per
    # rank (the default of smpirun, spelled out): the library must be correct
    # so, and must never need -no-privatize.
    --cfg=smpi/privatization:dlopen
    # Determinism: do not inject the real CPU time of this 2-core box between
    # MPI calls, and let MPI_Wtime()/clock_gettime() cost nothing.
    --cfg=smpi/simulate-computation:no
    --cfg=smpi/wtime:0
    # Raw platform figures: SMPI's default latency/bandwidth factors were
    # fitted to one TCP cluster and would scale our documented link figures
    # by 2-11x.  Messages >= 64 KiB (rendezvous) pay 3x the path latency: the
    # RTS/CTS round trip before the data.
    "--cfg=smpi/lat-factor:0:1;65536:3"
    --cfg=smpi/bw-factor:0:1
    "--cfg=smpi/os:$SMPI_MSG_COST"
    "--cfg=smpi/ois:$SMPI_MSG_COST"
    "--cfg=smpi/or:$SMPI_MSG_COST"
    # Eager protocol below 64 KiB, like MPICH/Open MPI: a small send moves its
    # data at once and returns (async-small-thresh), instead of SMPI's default
    # of starting the transfer only when the receive is posted.  Above it,
    # MPI_Send completes with the transfer (rendezvous).
    --cfg=smpi/async-small-thresh:65536
    --cfg=smpi/send-is-detached-thresh:65536
    # MPI_Test/MPI_Iprobe cost 0.1 us per call instead of the default 100 us,
    # which would dwarf every latency here (still > 0 so polling loops make
    # progress in simulated time).
    --cfg=smpi/test:1e-7
    --cfg=smpi/iprobe:1e-7
    # InfiniBand and shared memory are credit-based: no TCP ACK traffic on the
    # reverse direction (crosstraffic) and plain max-min fair sharing
    # regardless of round-trip time (weight-S 0).
    --cfg=network/crosstraffic:0
    --cfg=network/weight-S:0
    # SimGrid's max-min solver compares sums of 1/latency terms (~1e6-1e9
    # here) against an absolute epsilon of 1e-5; with hundreds of concurrent
    # flows the rounding left over exceeds it and SimGrid 3.32 aborts ("Cannot
    # saturate more a constraint that has no active element") or segfaults in
    # MaxMin::do_solve -- seen here on a 64-rank bcast and a 512-rank
    # allgather.  1e-3 (bytes, flops, 1/s) is far below anything we measure.
    --cfg=maxmin/precision:1e-3
    # SMPI's default ("naive") allgather posts all P*(P-1) messages at once:
    # at P=512 that is 261632 concurrent flows, minutes of solver time (and
    # the crash above).  Bruck is what MPICH uses for small allgathers, and it
    # is what the library's topology exchange and the tools need.  An explicit
    # smpi/allgather wins over smpi/coll-selector in either order (checked).
    --cfg=smpi/allgather:bruck
    # SMPI's default barrier is linear: the root releases the others one
    # message at a time, so at P=512 the last rank leaves ~100 us after the
    # first and every "barrier, then time one broadcast, max over ranks"
    # measures that skew (a binomial 8-byte bcast read 104 us instead of
    # 9.5 us).  MPICH's dissemination barrier has log2(P) rounds.
    --cfg=smpi/barrier:mpich
    # Quiet: no "Configuration change" lines, no host-speed advice (irrelevant
    # without simulated computation).  Warnings (deadlocks ...) still print.
    --log=xbt_cfg.thres:warning
    --log=smpi_config.thres:warning
    --log=smpi_coll.thres:warning
)

# Timing-only runs with large messages may add these: every malloc() of at
# least 1 MiB in code compiled by smpicc becomes a shared block that maps the
# same 1 MiB file, so P ranks x N MiB of payload share 1 MiB of physical
# memory (RSS still counts every mapping) and SMPI stops copying it (a 16 MiB
# flat bcast at P=64: 0.28 s of CPU instead of 0.88 s, same simulated time).
# Data is then garbage and all such blocks alias each
# other: only for programs whose allocations above the threshold are pure
# message payload.  The library itself is compiled with
# -DSMPI_NO_OVERRIDE_MALLOC (test/smpi/module.mk), so its own buffers are
# never shared; never use these options for correctness runs.
SMPI_BENCH_OPTS=(
    --cfg=smpi/shared-malloc:global
    --cfg=smpi/auto-shared-malloc-thresh:1048576
)

# Collective selectors for baselines (the default "naive" is what PMPI_Bcast
# falls back to otherwise).  mpich: host-level binomial (SMP_binomial) when all
# hosts hold the same number of ranks -- breaks when that number is not a
# power of two; ompi: scatter + recursive-doubling allgather for large
# messages at P >= 1024.  Warm up before timing: the first SMP-aware call pays
# a one-off communicator setup.
SMPI_COLL_MPICH=(--cfg=smpi/coll-selector:mpich)
SMPI_COLL_OMPI=(--cfg=smpi/coll-selector:ompi)

# ---- Which SimGrid runs the simulations -------------------------------------
# Run every simulation as
#   "${SMPIRUN_CMD[@]}" "${SMPI_OPTS[@]}" -platform P.xml -hostfile H.txt -np N PROG ARGS
# TB_SIMGRID chooses the SimGrid behind SMPIRUN_CMD:
#   debian  Debian's: /usr/bin/smpirun, its smpimain and libsimgrid.so.3.32
#   fixed   Debian's source package with the patches of bench/simgrid/
#           (`make simgrid`; bench/README.md, "SimGrid for P = 4096"): the
#           same simulated times but the first SMP-aware collective call on
#           a communicator, at a fraction of the CPU time from P ~ 1000 on;
#           when that build is missing or stale, the script sourcing this
#           file exits with status 2 (so does it for any other value)
#   auto    (the default) fixed when its build is present and up to date
#           with bench/simgrid/ (its stamp), else debian
# The build is looked for in TB_SIMGRID_DIR (default BUILD/simgrid, BUILD
# relative to the top of the tree).  Putting its lib/ first in
# LD_LIBRARY_PATH cannot work: Debian's smpirun exports LD_LIBRARY_PATH with
# /usr/lib/<arch> first before it starts its smpimain.  The build's own
# launcher, obj/smpi_script/bin/smpirun (written by its CMake: Debian's
# smpirun but for its paths), puts the build's obj/lib first and starts the
# build's smpimain; programs compiled by Debian's smpicc then bind to the
# libsimgrid.so.3.32 already loaded (same soname, same ABI).
# `make check` (test/run_tests.sh) sets TB_SIMGRID=debian when it is unset:
# CI never builds the patched SimGrid, and the suites check what CI runs,
# whatever a developer's tree holds.  Benchmarks and test/smpi/pipeline.sh
# take auto and print SMPI_SIMGRID (which one ran, and its library).
SMPIRUN_CMD=(smpirun)
SMPI_SIMGRID=
_tb_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
case ${BUILD:-build} in /*) _tb_dir=${BUILD}/simgrid ;; *) _tb_dir=$_tb_root/${BUILD:-build}/simgrid ;; esac
_tb_dir=${TB_SIMGRID_DIR:-$_tb_dir}
_tb_state=absent
if [ -x "$_tb_dir/obj/smpi_script/bin/smpirun" ] && [ -e "$_tb_dir/obj/lib/libsimgrid.so.3.32" ] && [ -e "$_tb_dir/stamp" ]; then
    _tb_state=stale
    [ "$(cat "$_tb_dir/stamp")" = "$("$_tb_root/bench/simgrid/build.sh" --stamp 2>/dev/null)" ] && _tb_state=ok
fi
case ${TB_SIMGRID:-auto} in
    debian) ;;
    fixed | auto)
        if [ $_tb_state = ok ]; then
            SMPIRUN_CMD=("$_tb_dir/obj/smpi_script/bin/smpirun")
        elif [ "${TB_SIMGRID:-auto}" = fixed ]; then
            echo "smpi-opts.sh: TB_SIMGRID=fixed, but the patched SimGrid in $_tb_dir is $_tb_state: run make simgrid" >&2
            exit 2
        elif [ $_tb_state = stale ]; then
            echo "smpi-opts.sh: the patched SimGrid in $_tb_dir is older than bench/simgrid/ (make simgrid): using Debian's" >&2
        fi
        ;;
    *)
        echo "smpi-opts.sh: TB_SIMGRID must be debian, fixed or auto, not '$TB_SIMGRID'" >&2
        exit 2
        ;;
esac
if [ "${SMPIRUN_CMD[0]}" = smpirun ]; then
    SMPI_SIMGRID="debian: $(command -v smpirun) ($(smpirun -version 2>/dev/null), Debian's libsimgrid)"
else
    SMPI_SIMGRID="fixed: ${SMPIRUN_CMD[0]} ($("${SMPIRUN_CMD[0]}" -version 2>/dev/null), Debian's source + bench/simgrid/patches)"
fi
unset _tb_root _tb_dir _tb_state

# Address-space mappings: SMPI maps a copy of the program per rank (its
# segments), a stack per rank and each rank's large buffers, under the
# kernel's vm.max_map_count (65530 by default): 8.1-8.2 per rank measured
# (smpi_trivial.c with the library, topobcast-bench up to 1 MiB; P=1024),
# so P=4096 fits.
# Past it a dlopen fails: "failed to map segment from shared object", then
# SMPI's misleading "Did you compile the program with a SMPI-specific
# compiler".  smpi_maps_check NP warns (stderr, status 1) when NP ranks at
# 12 regions each would not fit; smpi_maps_explain LOG NP prints the cause
# when a failed run's log shows it (status 0 when it did).
smpi_maps_check() {
    local max need=$((${1:?NP} * 12 + 1000))
    max=$(cat /proc/sys/vm/max_map_count 2>/dev/null) || return 0
    [ "$max" -ge "$need" ] && return 0
    echo "smpi: vm.max_map_count is $max; $1 simulated ranks may need up to $need mappings (a copy of the program, a stack and large buffers per rank). If the run fails with 'failed to map segment', raise it as root (sysctl -w vm.max_map_count=$((need * 2))) and set it back afterwards." >&2
    return 1
}
smpi_maps_explain() {
    grep -q 'failed to map segment' "$1" 2>/dev/null || return 1
    echo "smpi: the simulation ran out of memory mappings (vm.max_map_count = $(cat /proc/sys/vm/max_map_count 2>/dev/null)) for ${2:-its} ranks: raise it as root (sysctl -w vm.max_map_count=$((${2:-4096} * 32))) and set it back afterwards; 'Did you compile the program with a SMPI-specific compiler' above is a consequence, not the cause" >&2
    return 0
}
