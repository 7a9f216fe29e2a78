# shellcheck shell=bash
# Text helpers shared by the suites (through lib.sh) and test/vcluster/
# check.sh: they read the library's TOPOBCAST_STATS lines and write
# topology files.  Functions only: sourcing this sets no variable, trap or
# directory.

# The library's statistics (libtopobcast/src/run/stats.c) are lines "topobcast:
# stats: algorithm=NAME calls=N bytes=N", "... rule=...", "... fallback
# calls=N (WHY; used MPI_Bcast)", each printed only when N > 0.
stats_calls() { # NAME <LOG: N of LOG's first "topobcast: stats: algorithm=NAME calls=N " line; nothing if none
    sed -n "s/^topobcast: stats: algorithm=$1 calls=\([0-9][0-9]*\) .*/\1/p" | head -1
}
stats_others() { # NAME <LOG: LOG's stats lines of algorithms other than NAME and of fallbacks, as they are; nothing if none
    grep -E '^topobcast: stats: (algorithm=|fallback)' | grep -v "algorithm=$1 "
}

# A topology file (config/README.md) is "topobcast: 2", the "topology:"
# section and often a selection; the caller writes the other keys around
# the section.  HOSTS: host names; LEAVES: one word "HOST,PU" (or more
# integers) per calibration rank, in rank order, printed "- [HOST, PU]";
# both separated by blanks.  GROUP: one level's line "LEVEL: [[...], ...]",
# printed as given, coarsest level first.
topology_yaml() { # HOSTS LEAVES GROUP...: the topology section; nprocs = the leaves, levels = the GROUPs' names
    local -a hosts leaves level_names=()
    local s leaf g
    read -rd '' -a hosts <<<"$1" || true # (read -d '' ends its input with status 1)
    read -rd '' -a leaves <<<"$2" || true
    shift 2
    for g; do level_names+=("${g%%:*}"); done
    echo "topology:"
    printf -v s '%s, ' "${hosts[@]}"
    echo "  fingerprint: {nprocs: ${#leaves[@]}, hosts: [${s%, }]}"
    printf -v s '%s, ' "${level_names[@]}"
    echo "  levels: [${s%, }]"
    echo "  leaves:"
    for leaf in "${leaves[@]}"; do echo "    - [${leaf//,/, }]"; done
    echo "  groups:"
    for g; do echo "    $g"; done
}
