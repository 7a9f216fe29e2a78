#!/usr/bin/env bash
# usage: bench/scale/smpi_startup.sh [NP [PLATFORM [HOSTFILE [CASE ...]]]]
#        (defaults: 4096, betzy-nps4, PLATFORM-contiguous.txt, the trivial*
#        cases; `make bench-scale-smpi` builds what it needs and runs it)
#
# Whole simulated jobs at scale under SMPI, each under /usr/bin/time -v:
# wall time, CPU time and peak RSS of the one smpirun process that holds all
# NP ranks (bench/scale/README.md).  SMPI_OPTS of test/smpi/smpi-opts.sh,
# the default collective selector.  Cases:
#   trivial        smpi_trivial.c without the library (scale_trivial): MPI_Init,
#                  one 8-byte MPI_Bcast on MPI_COMM_WORLD, MPI_Finalize
#   trivial-lib    the same program linked with the library (scale_trivial_lib;
#                  under SMPI the library is linked, not preloaded:
#                  test/smpi/module.mk), built-in table
#   trivial-lib-topo  the same with TOPOBCAST_CONFIG = the platform's topology
#                  (bench/scale/platform_topo.py from its truth file and the
#                  hostfile, format 2)
#   default        topobcast-bench -a default -s SIZES -r 1 -w 1
#   default-topo   the same with the platform's topology
#   binomial, magpie            topobcast-bench -a ALG ... (no topology:
#                  magpie then has the one level SMPI shows, the host)
#   binomial-topo, magpie-topo  the same with the topology
# SIZES: SCALE_SMPI_SIZES, default 1,64K,1M.  SCALE_SMPI_CFG: more smpirun
# options, after SMPI_OPTS (e.g. --cfg=smpi/coll-selector:mpich).  Memory: the simulation holds
# every rank's copy of the library; see bench/scale/README.md for the peaks
# at P=4096 before running the bench cases.
# Prints which SimGrid runs them (TB_SIMGRID, test/smpi/smpi-opts.sh: the
# patched build of `make simgrid` when present), then one line per case:
# CASE wall_s cpu_s peak_MB rc, and keeps each log in SCALE_SMPI_OUT
# (default $BUILD/bench/scale/smpi-NP).  A run short of address-space
# mappings (vm.max_map_count) says so.
set -u
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
BUILD=${BUILD:-build}
NP=${1:-4096}
PLAT=${2:-betzy-nps4}
HOSTS=${3:-test/platforms/$PLAT-contiguous.txt}
shift $(($# < 3 ? $# : 3))
CASES=${*:-trivial trivial-lib trivial-lib-topo}
OUT=${SCALE_SMPI_OUT:-$BUILD/bench/scale/smpi-$NP}
TIMEOUT=${SCALE_SMPI_TIMEOUT:-7200}
SBIN=$ROOT/$BUILD/smpi/bin
for f in "$SBIN/scale_trivial" "$SBIN/scale_trivial_lib" "$SBIN/topobcast-bench" "test/platforms/$PLAT.xml" "$HOSTS"; do
    [ -e "$f" ] || { echo "smpi_startup.sh: $f missing (make bench-scale-smpi builds it)" >&2; exit 1; }
done
# shellcheck source=test/smpi/smpi-opts.sh
. test/smpi/smpi-opts.sh
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
HOSTS=$(cd "$(dirname "$HOSTS")" && pwd)/$(basename "$HOSTS")
topo=$OUT/topology.yaml
python3 bench/scale/platform_topo.py "$NP" --truth "test/platforms/$PLAT-truth.txt" --hostfile "$HOSTS" -o "$topo" || exit 1
# shellcheck disable=SC2206 # options separated by spaces
cfg=(${SCALE_SMPI_CFG:-})
bench=("$SBIN/topobcast-bench" -s "${SCALE_SMPI_SIZES:-1,64K,1M}" -r 1 -w 1 -a)

smpi_maps_check "$NP" || true # a warning; a run that fails for it says so below
echo "# $PLAT $(basename "$HOSTS") P=$NP${cfg[*]:+ ${cfg[*]}}; SimGrid: $SMPI_SIMGRID"
echo "# case wall_s cpu_s peak_MB rc"
cd "$OUT" || exit 1 # smpirun may leave temporary files in the current directory
for c in $CASES; do
    env=()
    case $c in
        trivial) cmd=("$SBIN/scale_trivial") ;;
        trivial-lib) cmd=("$SBIN/scale_trivial_lib") ;;
        trivial-lib-topo) cmd=("$SBIN/scale_trivial_lib"); env=("TOPOBCAST_CONFIG=$topo") ;;
        default) cmd=("${bench[@]}" default) ;;
        default-topo) cmd=("${bench[@]}" default); env=("TOPOBCAST_CONFIG=$topo") ;;
        binomial | magpie) cmd=("${bench[@]}" "$c") ;;
        binomial-topo | magpie-topo) cmd=("${bench[@]}" "${c%-topo}"); env=("TOPOBCAST_CONFIG=$topo") ;;
        *) echo "smpi_startup.sh: unknown case $c" >&2; exit 2 ;;
    esac
    env "${env[@]}" timeout "$TIMEOUT" /usr/bin/time -v -o "$c.time" "${SMPIRUN_CMD[@]}" "${SMPI_OPTS[@]}" "${cfg[@]}" \
        -platform "$ROOT/test/platforms/$PLAT.xml" -hostfile "$HOSTS" -np "$NP" "${cmd[@]}" >"$c.log" 2>&1
    rc=$?
    awk -v c="$c" -v rc="$rc" '/Maximum resident set size/ { mb = $NF / 1024 }
        /User time/ { cpu += $NF } /System time/ { cpu += $NF }
        /Elapsed \(wall clock\)/ { n = split($NF, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i] }
        END { printf "%-16s %8.1f %8.1f %8.0f %3s\n", c, s, cpu, mb, rc }' "$c.time"
    [ $rc -eq 0 ] || smpi_maps_explain "$c.log" "$NP" || true
done
