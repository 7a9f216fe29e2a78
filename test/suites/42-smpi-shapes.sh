#!/usr/bin/env bash
# Selection by communicator shape under SimGrid SMPI, where ranks run on
# several simulated nodes: four sub-communicators of 4 ranks each (one node;
# one rank per node; two nodes in blocks; two nodes interleaved) select four
# different rules of a table keyed on nodes, ppn and consecutive, every rank
# agreeing on each choice, data checked; TOPOBCAST_STATS counts each rule's
# calls.  Skips when smpicc is missing.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
T=smpi-shapes
if ! command -v smpicc >/dev/null 2>&1 || ! command -v smpirun >/dev/null 2>&1; then
    echo "ok $T # skip smpicc missing"
    exit 0
fi
# shellcheck source=test/smpi/smpi-opts.sh
. test/smpi/smpi-opts.sh
echo "# SimGrid: $SMPI_SIMGRID (TB_SIMGRID=${TB_SIMGRID:-auto})"
logdir=$BUILD/test/logs/smpi-shapes
mkdir -p "$logdir"
if ! make -s smpi BUILD="$BUILD" >"$logdir/build.log" 2>&1 || [ ! -x "$BUILD/smpi/bin/shape_select" ]; then
    echo "not ok $T build (make smpi): see $logdir/build.log"
    exit 1
fi
# 4 ranks on each of 4 nodes (SimGrid hosts), ranks 4k..4k+3 on node k
for h in fram-n00-s0 fram-n00-s1 fram-n01-s0 fram-n16-s0; do for _ in 1 2 3 4; do echo "$h"; done; done >"$logdir/hosts.txt"
cat >"$logdir/table.yaml" <<'YAML'
topobcast: 1
selection:
  - {nodes: 1, algorithm: flat}
  - {ppn: 1, algorithm: binomial}
  - {ppn: 2-inf, consecutive: no, algorithm: "knomial:radix=3"}
  - {ppn: 2-inf, algorithm: chain}
  - {algorithm: default}
YAML
log=$logdir/shape_select.log
TOPOBCAST_CONFIG=$logdir/table.yaml TOPOBCAST_STATS=1 timeout 300 "${SMPIRUN_CMD[@]}" "${SMPI_OPTS[@]}" \
    -platform test/platforms/fram.xml -hostfile "$logdir/hosts.txt" -np 16 "$BUILD/smpi/bin/shape_select" >"$log" 2>&1
rc=$?
grep -E '^(ok|not ok) ' "$log"
grep '^shape_select ' "$log" | sed 's/^/# /'
want() { # name algorithm
    if grep -qE "^shape_select $1 size=4 algorithm=$2(:| ).* agreed$" "$log"; then
        echo "ok $T $1 (4 ranks) selects $2"
    else
        echo "not ok $T $1 (4 ranks) selects $2: see $log"
    fi
}
want one-node flat
want one-per-node binomial
want two-mixed knomial
want two-blocks chain
# each rule fired for its communicator's 3 broadcasts (counted at the root)
if [ "$rc" -eq 0 ] && ! grep -q 'Deadlock detected' "$log" &&
    [ "$(grep -cE '^topobcast: stats: rule=[1-4] line=[3-6] source=.*table.yaml calls=3$' "$log")" -eq 4 ] &&
    ! grep -qE '^topobcast: stats: rule=5 ' "$log"; then
    echo "ok $T stats: rules 1-4 fired 3 times each, the final default never"
else
    echo "not ok $T stats: rules 1-4 fired 3 times each, the final default never (exit $rc): see $log"
    grep '^topobcast: stats' "$log" | sed 's/^/# /'
fi
