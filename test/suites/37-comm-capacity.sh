#!/usr/bin/env bash
# The application keeps its communicators: the library duplicates a
# communicator only when one of its algorithms runs there, and holds at most
# TOPOBCAST_MAX_COMMS duplicates; beyond that it falls back to MPI_Bcast with
# one warning.  Configuration warnings come once per job, from world rank 0,
# even when several communicators meet the problem; the stats give the same
# reason as the warning.  Calls that stay default never set up the
# communicator's hierarchy (the topology is mapped only when a call needs it).
cd "$(dirname "$0")/../.." || exit 1
. test/suites/lib.sh
APP=$T/comm_capacity
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
warnings() { printf '%s\n' "$OUT" | grep '^topobcast: ' | grep -v -c '^topobcast: stats'; }
capacity() { sed -n 's/^capacity //p' <<<"$OUT"; }

OUT=$(timeout 120 mpiexec -n 2 "$APP" 2>&1)
base=$(capacity)
check "capacity without the library: measured ($base)" test -n "$base" -a "${base:-0}" -gt 100
base=${base:-0}
echo "# without library: $base communicators"

# The built-in table sends these 4000-byte broadcasts to MPI_Bcast: no
# duplicate at all.
run_mpi 2 120 TOPOBCAST_STATS=1 -- "$APP"
n=$(capacity)
echo "# library, built-in table: ${n:-?} communicators"
check "built-in table: data correct" grep -q "all data correct" <<<"$OUT"
check "built-in table: capacity ${n:-?} = without the library ($base)" [ "${n:-0}" -eq "$base" ]
check "built-in table: no warning" [ "$(warnings)" -eq 0 ]

# Every broadcast runs the library's binomial tree: at most 64 duplicates.
run_mpi 2 120 TOPOBCAST_ALGORITHM=binomial TOPOBCAST_STATS=1 -- "$APP"
n=$(capacity)
echo "# library, binomial everywhere: ${n:-?} communicators"
check "binomial: data correct on every communicator" grep -q "all data correct" <<<"$OUT"
check "binomial: capacity ${n:-?} >= 95% of $base" [ $((${n:-0} * 100)) -ge $((base * 95)) ]
check "binomial: exactly one warning" [ "$(warnings)" -eq 1 ]
check "binomial: warning names the rank and its limit, TOPOBCAST_MAX_COMMS=64" \
    grep -q "^topobcast: world rank 0 already holds TOPOBCAST_MAX_COMMS=64 private communicators" <<<"$OUT"
check "binomial: 64 communicators x 2 broadcasts ran binomial" grep -q "algorithm=binomial calls=128 " <<<"$OUT"
check "binomial: stats give the warning's reason" \
    grep -q "fallback calls=.*world rank 0 already holds TOPOBCAST_MAX_COMMS=64 private communicators" <<<"$OUT"

run_mpi 2 120 TOPOBCAST_ALGORITHM=binomial TOPOBCAST_MAX_COMMS=3 TOPOBCAST_STATS=1 -- "$APP"
check "TOPOBCAST_MAX_COMMS=3: data correct" grep -q "all data correct" <<<"$OUT"
check "TOPOBCAST_MAX_COMMS=3: 3 communicators x 2 broadcasts ran binomial" \
    grep -q "algorithm=binomial calls=6 " <<<"$OUT"

# The limit differs by rank (MPMD launch): the smallest one decides for
# every rank (all duplicate or none does: no hang), and the one warning
# names the rank whose limit was reached and that limit, whichever it is.
mpmd_limits() { # LIMIT-OF-WORLD-RANK-0 LIMIT-OF-WORLD-RANK-1
    local envs=(LD_PRELOAD="$(preload 2)" TOPOBCAST_ALGORITHM=binomial TOPOBCAST_STATS=1)
    OUT=$(timeout 120 mpiexec -n 1 env "${envs[@]}" TOPOBCAST_MAX_COMMS="$1" "$APP" : \
        -n 1 env "${envs[@]}" TOPOBCAST_MAX_COMMS="$2" "$APP" 2>&1)
    RC=$?
}
for lim in "64 8 1" "8 64 0"; do
    read -r l0 l1 who <<<"$lim"
    mpmd_limits "$l0" "$l1"
    name="TOPOBCAST_MAX_COMMS=$l0 on rank 0, =$l1 on rank 1"
    check "$name: status 0 (got $RC), data correct" bash -c '[ "$1" -eq 0 ] && grep -q "all data correct" <<<"$2"' _ "$RC" "$OUT"
    check "$name: 8 communicators x 2 broadcasts ran binomial" grep -q "algorithm=binomial calls=16 " <<<"$OUT"
    check "$name: one warning, naming world rank $who and TOPOBCAST_MAX_COMMS=8, not 64" \
        bash -c '[ "$1" -eq 1 ] && grep -q "^topobcast: world rank $2 already holds TOPOBCAST_MAX_COMMS=8 private" <<<"$3" &&
                 ! grep -q "TOPOBCAST_MAX_COMMS=64" <<<"$3"' _ "$(warnings)" "$who" "$OUT"
    check "$name: stats give the warning's reason" \
        grep -q "^topobcast: stats: fallback calls=.*world rank $who already holds TOPOBCAST_MAX_COMMS=8 private" <<<"$OUT"
done

# One warning per job: 4 ranks, two half communicators both meet the problem.
{
    echo "topobcast: 2"
    topology_yaml "no-such-host" "0,0 0,1" "node: [[0, 1]]"
    echo "selection:"
    echo "  - {algorithm: binomial}"
} >"$D/n2.yaml"
for c in "$D/missing.yaml:expected a readable file" "$D/n2.yaml:host $(hostname) (world rank 0) is not in the topology" \
    "/dev/zero:expected a regular file"; do
    file=${c%%:*} text=${c#*:}
    run_mpi 4 60 TOPOBCAST_CONFIG="$file" TOPOBCAST_STATS=1 -- "$APP" split
    check "split communicators, $text: data correct" grep -q "all data correct" <<<"$OUT"
    check "split communicators, $text: one warning for the job" [ "$(warnings)" -eq 1 ]
    check "split communicators, $text: warning says why" grep -q "^topobcast: .*$text" <<<"$OUT"
    check "split communicators, $text: stats give the same reason" \
        grep -q "^topobcast: stats: fallback calls=6 (.*$text" <<<"$OUT"
done

# A communicator whose calls all stay default never needs its hierarchy:
# the library then neither exchanges identities nor maps the ranks onto the
# topology (nor duplicates the communicator).  The same topology that does
# not fit this 4-rank job (measured on another host) is only found out --
# and warned about once -- when a call needs it: the split run's 4000-byte
# broadcasts are default up to 4 KiB, binomial from 3 KiB on.  With
# TOPOBCAST_STATS (per-communicator reports) the set-up is whole at once.
for upto in 4K 3K; do
    sed '/^selection:/,$d' "$D/n2.yaml" >"$D/n2-$upto.yaml"
    printf 'selection:\n  - {bytes: 0-%s, algorithm: default}\n  - {algorithm: binomial}\n' "$upto" >>"$D/n2-$upto.yaml"
done
run_mpi 4 60 TOPOBCAST_CONFIG="$D/n2-4K.yaml" -- "$APP" split
check "default up to 4 KiB, 4000-byte calls: data correct" grep -q "all data correct" <<<"$OUT"
check "default up to 4 KiB, 4000-byte calls: topology never mapped, no warning" [ "$(warnings)" -eq 0 ]
run_mpi 4 60 TOPOBCAST_CONFIG="$D/n2-3K.yaml" -- "$APP" split
check "default up to 3 KiB, 4000-byte calls: data correct" grep -q "all data correct" <<<"$OUT"
check "default up to 3 KiB, 4000-byte calls: the topology is mapped and refused, one warning" \
    bash -c '[ "$1" -eq 1 ] && grep -q "^topobcast: .*is not in the topology" <<<"$2"' _ "$(warnings)" "$OUT"
run_mpi 4 60 TOPOBCAST_CONFIG="$D/n2-4K.yaml" TOPOBCAST_STATS=1 -- "$APP" split
check "default up to 4 KiB with TOPOBCAST_STATS: mapped at set-up, one warning, stats say why" \
    bash -c '[ "$1" -eq 1 ] && grep -q "^topobcast: stats: fallback calls=6 (.*is not in the topology" <<<"$2"' _ "$(warnings)" "$OUT"
