#!/usr/bin/env bash
# usage: bench/scale/startup.sh [P ...]   (default 4096 16384 65536; after
#        `make` and the startup program: `make bench-scale` does both)
#
# The library's per-process start-up at scale (bench/scale/README.md): for
# each P, a synthetic topology YAML as topobcast-probe writes it
# (mktopo.py: 128 ranks per node, levels group/node/socket/numa, no
# distance matrix; with the matrix too for the P in SCALE_DISTANCE, default
# 4096), then three runs of bench/scale/startup.c under /usr/bin/time -v:
# none, load (tb_config_load; SCALE_LOAD_REPS runs, default 3) and derive
# (load, then the identities, tb_topo_derive and the magpie and binomial
# schedules of rank 0 and the last rank).  Prints one table row per file:
#   load s    = median over the load runs of the CPU time of tb_config_load
#   load MB   = peak RSS of the load runs - peak RSS of the none run
#               (/usr/bin/time -v)
#   kept MB   = what stays resident once the load returned (freed memory
#               given back)
#   ids MB    = the identities the exchange delivers, P x sizeof(tb_identity)
#   derive s  = median CPU time of tb_topo_derive (5 calls)
#   derive MB = peak RSS the identities and tb_topo_derive add to the kept
#               configuration; bcast MB: the same with the 4 schedules,
#               i.e. what the first MPI_Bcast adds after the exchange
#   ms 0/N    = median CPU time to build the schedule of rank 0 / rank P-1
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
OUT=${SCALE_OUT:-$BUILD/bench/scale}
BIN=$OUT/startup
SCALE_DISTANCE=${SCALE_DISTANCE:-4096}
[ -x "$BIN" ] || { echo "startup.sh: $BIN missing (make bench-scale)" >&2; exit 1; }
command -v /usr/bin/time >/dev/null || { echo "startup.sh: /usr/bin/time missing" >&2; exit 1; }
[ $# -gt 0 ] || set -- 4096 16384 65536
mkdir -p "$OUT"
# the matrix at P=4096 is ~140 MB, above the loader's 64 MB default
export TOPOBCAST_CONFIG_MAX_BYTES=${TOPOBCAST_CONFIG_MAX_BYTES:-4G}

# run PHASE FILE: the program's key=value line, then /usr/bin/time's peak
# RSS (MB) and wall seconds appended as time_MB= and time_s=
run() {
    local line
    line=$(timeout 3600 /usr/bin/time -v -o "$OUT/time.txt" "$BIN" "$1" "$2") || return 1
    echo "# $2: $line" >>"$OUT/runs.txt"
    awk -v l="$line" '/Maximum resident set size/ { mb = $NF / 1024 }
        /Elapsed \(wall clock\)/ { n = split($NF, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i] }
        END { printf "%s time_MB=%.1f time_s=%.2f\n", l, mb, s }' "$OUT/time.txt"
}
get() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

LOAD_REPS=${SCALE_LOAD_REPS:-3}
fmt='%-6s %-4s %11s %7s %7s %7s %6s %8s %9s %8s %13s %15s\n'
# shellcheck disable=SC2059
printf "$fmt" P dist "YAML bytes" "load s" "load MB" "kept MB" "ids MB" "derive s" "derive MB" "bcast MB" \
    "magpie ms 0/N" "binomial ms 0/N"
for p in "$@"; do
    for dist in no yes; do
        [ $dist = yes ] && ! [[ " $SCALE_DISTANCE " == *" $p "* ]] && continue
        f=$OUT/topo-$p-$dist.yaml
        if [ ! -s "$f" ]; then
            opt=(); [ $dist = yes ] && opt=(--distance)
            python3 bench/scale/mktopo.py "$p" "${opt[@]}" -o "$f.tmp" && mv "$f.tmp" "$f" || exit 1
        fi
        if ! none=$(run none "$f") || ! derive=$(run derive "$f"); then
            echo "startup.sh: P=$p failed" >&2
            exit 1
        fi
        base=$(get time_MB "$none") loads="" peak=0
        for ((i = 0; i < LOAD_REPS; i++)); do
            load=$(run load "$f") || { echo "startup.sh: P=$p load failed" >&2; exit 1; }
            loads="$loads $(get load_s "$load")"
            peak=$(echo "$peak $(get time_MB "$load")" | awk '{ print ($2 > $1) ? $2 : $1 }')
        done
        # shellcheck disable=SC2059
        printf "$fmt" "$p" $dist "$(stat -c %s "$f")" \
            "$(echo "$loads" | tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')" \
            "$(echo "$peak - $base" | bc)" "$(echo "$(get kept_MB "$load") - $(get base_MB "$load")" | bc)" \
            "$(get ids_MB "$derive")" "$(get derive_s "$derive")" "$(get derive_add_MB "$derive")" \
            "$(get total_add_MB "$derive")" "$(get magpie_ms "$derive")" "$(get binomial_ms "$derive")"
    done
done
