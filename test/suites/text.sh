# shellcheck shell=bash
# Text helpers shared by the suites (through lib.sh) and test/vcluster/
# check.sh: they read the library's TOPOBCAST_STATS lines.  Functions only:
# sourcing this sets no variable, trap or directory.

# The library's statistics (libtopobcast/src/stats.c) are lines "topobcast:
# stats: algorithm=NAME calls=N bytes=N", "... rule=...", "... fallback
# calls=N (WHY; used MPI_Bcast)", each printed only when N > 0.
stats_calls() { # NAME <LOG: N of LOG's first "topobcast: stats: algorithm=NAME calls=N " line; nothing if none
    sed -n "s/^topobcast: stats: algorithm=$1 calls=\([0-9][0-9]*\) .*/\1/p" | head -1
}
stats_others() { # NAME <LOG: LOG's stats lines of algorithms other than NAME and of fallbacks, as they are; nothing if none
    grep -E '^topobcast: stats: (algorithm=|fallback)' | grep -v "algorithm=$1 "
}
