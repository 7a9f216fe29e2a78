#!/usr/bin/env bash
# usage: test/smpi/levels.sh PLATFORM     (fram, betzy, arm1; after `make smpi`)
#
# Ping-pong under SMPI between rank 0 and one rank per level of
# test/platforms/PLATFORM.xml (the peers in PLATFORM-levels.txt), with empty
# and 1 MiB messages and the options of smpi-opts.sh.  Prints one line per
# level:
#   PLATFORM LEVEL HOST ONEWAY_0B_US GBPS_1MIB PATH_LAT_US PATH_BW_GBPS
# the last two being the link model alone (path latency, bottleneck), so the
# difference shows the per-message CPU costs and the rendezvous handshake.
# Exits non-zero if the simulation fails or a level is missing.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
plat=${1:?usage: levels.sh PLATFORM}
xml=test/platforms/$plat.xml
levels=test/platforms/$plat-levels.txt
bin=$BUILD/smpi/bin/pingpong
for f in "$xml" "$levels" "$bin"; do
    [ -e "$f" ] || { echo "levels.sh: $f missing (make smpi?)" >&2; exit 1; }
done
# shellcheck source=test/smpi/smpi-opts.sh
. test/smpi/smpi-opts.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# hostfile: rank 0 on the root host, rank i on the host of level i
labels=() lat=() bw=()
while read -r label host plat_lat plat_bw; do
    case $label in '#'*|'') continue ;; esac
    echo "$host" >>"$tmp/hosts"
    [ "$label" = root ] && continue
    labels+=("$label") lat+=("$plat_lat") bw+=("$plat_bw")
done <"$levels"
np=$(wc -l <"$tmp/hosts")

if ! timeout 300 "${SMPIRUN_CMD[@]}" "${SMPI_OPTS[@]}" -platform "$xml" -hostfile "$tmp/hosts" -np "$np" \
        "$bin" 0 1M >"$tmp/out" 2>"$tmp/err"; then
    echo "levels.sh: smpirun failed on $plat:" >&2
    cat "$tmp/err" >&2
    exit 1
fi

echo "# platform level host oneway_0B_us GBps_1MiB path_lat_us path_bw_GBps"
status=0
for i in "${!labels[@]}"; do
    rank=$((i + 1))
    l0=$(awk -v r="$rank" '$1 == "peer" && $2 == r && $4 == 0 {print $3, $5}' "$tmp/out")
    b1=$(awk -v r="$rank" '$1 == "peer" && $2 == r && $4 == 1048576 {print $6}' "$tmp/out")
    if [ -z "$l0" ] || [ -z "$b1" ]; then
        echo "levels.sh: no result for level ${labels[$i]} (rank $rank)" >&2
        status=1
        continue
    fi
    read -r host us <<<"$l0"
    echo "$plat ${labels[$i]} $host $us $b1 ${lat[$i]} ${bw[$i]}"
done
exit $status
