#!/usr/bin/env bash
# Configuration agreement under MPI: every doubtful configuration gives one
# warning from one rank and a fallback to MPI_Bcast -- never a hang, never an
# abort -- and a good one is used (its rules fire).
cd "$(dirname "$0")/../.." || exit 1
. test/suites/lib.sh
APP=$BUILD/bin/bcast_app
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
HOST=$(hostname)

topology() { # HOST NPROCS [PU] -> a one-node topology of NPROCS leaves on HOST, leaf r on PU r (or PU)
    local host=$1 np=$2 r leaves=
    for ((r = 0; r < np; r++)); do leaves+="0,${3:-$r} "; done
    echo "topobcast: 2"
    topology_yaml "$host" "$leaves" "node: [[$(seq -s, 0 $((np - 1)))]]"
}
{ topology "$HOST" 2; echo "selection:"; echo "  - {bytes: 0-1K, algorithm: binomial}"; echo "  - {algorithm: \"pipeline:segment=16K\"}"; } >"$D/good.yaml"
{ topology "no-such-host" 2; echo "selection:"; echo "  - {algorithm: binomial}"; } >"$D/otherhost.yaml"
{ topology "$HOST" 12; echo "selection:"; echo "  - {algorithm: binomial}"; } >"$D/nprocs.yaml"
{ topology "$HOST" 4 -1; echo "selection:"; echo "  - {bytes: 0-1K, algorithm: binomial}"
  echo "  - {algorithm: \"pipeline:segment=16K\"}"; } >"$D/good4.yaml"
printf 'topobcast: 1\nselection:\n  - {bytes: 0-1K, algorithm: binomial\n' >"$D/malformed.yaml"
printf 'topobcast: 1\nselection:\n  - {algorithm: turbo_tree}\n' >"$D/unknown.yaml"
printf 'topobcast: 1\nselection:\n  - {algorithm: flat}\n' >"$D/flat.yaml"

warnings() { printf '%s\n' "$OUT" | grep '^topobcast: ' | grep -v -c '^topobcast: stats'; }
expect_fallback() { # NAME TEXT
    local name=$1 text=$2
    check "$name: exit status 0" [ "$RC" -eq 0 ]
    check "$name: data correct" grep -q "all data correct" <<<"$OUT"
    check "$name: exactly one warning" [ "$(warnings)" -eq 1 ]
    check "$name: warning says why" grep -qF -- "$text" <<<"$OUT"
    check "$name: every call fell back to MPI_Bcast" grep -q "fallback calls=7" <<<"$OUT"
}

run_mpi 2 60 TOPOBCAST_CONFIG="$D/missing.yaml" TOPOBCAST_STATS=1 -- "$APP"
expect_fallback "missing file" "$D/missing.yaml"

# Paths that are not regular files, or too large: one warning and MPI_Bcast
# within the timeout (/dev/zero would feed a loader that reads it forever).
mkfifo "$D/fifo"
mkdir "$D/dir"
for p in /dev/zero:"a character device" /dev/urandom:"a character device" "$D/fifo":"a FIFO" \
    "$D/dir":"a directory"; do
    run_mpi 2 60 TOPOBCAST_CONFIG="${p%%:*}" TOPOBCAST_STATS=1 -- "$APP"
    expect_fallback "config is ${p#*:} (${p%%:*})" "expected a regular file, this is ${p#*:}"
done
run_mpi 2 60 TOPOBCAST_CONFIG="$D/good.yaml" TOPOBCAST_CONFIG_MAX_BYTES=100 TOPOBCAST_STATS=1 -- "$APP"
expect_fallback "config larger than TOPOBCAST_CONFIG_MAX_BYTES" "expected at most 100 bytes (TOPOBCAST_CONFIG_MAX_BYTES)"

run_mpi 2 60 TOPOBCAST_CONFIG="$D/malformed.yaml" TOPOBCAST_STATS=1 -- "$APP"
expect_fallback "malformed yaml" "malformed.yaml:4:"

run_mpi 2 60 TOPOBCAST_CONFIG="$D/unknown.yaml" TOPOBCAST_STATS=1 -- "$APP"
expect_fallback "unknown algorithm" "unknown algorithm 'turbo_tree'"

run_mpi 2 60 TOPOBCAST_CONFIG="$D/otherhost.yaml" TOPOBCAST_STATS=1 -- "$APP"
expect_fallback "host not in topology" "host $HOST (world rank 0) is not in the topology of $D/otherhost.yaml (1 host: no-such-host)"

# A topology serves any job on its hosts, whatever the size it was measured
# with: 12 leaves on this host, a job of 2.
run_mpi 2 60 TOPOBCAST_CONFIG="$D/nprocs.yaml" TOPOBCAST_STATS=1 -- "$APP"
check "measured with 12 processes, a job of 2: data correct, no warning, the table's binomial for every call" \
    bash -c '[ "$1" -eq 0 ] && grep -q "all data correct" <<<"$2" && [ "$3" -eq 0 ] &&
             grep -q "algorithm=binomial calls=7" <<<"$2" && ! grep -q "fallback calls" <<<"$2"' _ "$RC" "$OUT" "$(warnings)"

# The site configuration: with TOPOBCAST_CONFIG unset, PREFIX/etc/topobcast/
# site.yaml beside the installed library (found from the library's own
# place, so a copied or moved installation finds its own); set but empty:
# none, the built-in table.
libdir=$D/prefix/lib
[ "${TB_MPI_FLAVOR:-mpich}" = openmpi ] && libdir=$D/prefix/lib/openmpi # as make install lays them out
mkdir -p "$libdir" "$D/prefix/etc/topobcast"
cp "$LIB" "$libdir/"
cp "$D/good.yaml" "$D/prefix/etc/topobcast/site.yaml"
SITE_LIB=$libdir/$(basename "$LIB")
OUT=$(timeout 60 mpiexec -n 2 env -u TOPOBCAST_CONFIG LD_PRELOAD="$SITE_LIB" TOPOBCAST_STATS=1 TOPOBCAST_VERBOSE=1 "$APP" 2>&1)
RC=$?
check "site file, TOPOBCAST_CONFIG unset: its rules fire (binomial 3, pipeline 4), verbose names it" \
    bash -c '[ "$1" -eq 0 ] && grep -q "all data correct" <<<"$2" && grep -q "algorithm=binomial calls=3" <<<"$2" &&
             grep -q "algorithm=pipeline calls=4" <<<"$2" &&
             grep -qF "configuration: $3 (the site'"'"'s: TOPOBCAST_CONFIG is unset)" <<<"$2"' _ "$RC" "$OUT" \
    "$D/prefix/etc/topobcast/site.yaml"
OUT=$(timeout 60 mpiexec -n 2 env LD_PRELOAD="$SITE_LIB" TOPOBCAST_CONFIG= TOPOBCAST_STATS=1 "$APP" 2>&1)
RC=$?
check "site file, TOPOBCAST_CONFIG set but empty: the built-in table (MPI_Bcast), no warning" \
    bash -c '[ "$1" -eq 0 ] && grep -q "all data correct" <<<"$2" && grep -q "algorithm=default calls=7" <<<"$2" &&
             ! grep -v "^topobcast: stats" <<<"$2" | grep -q "^topobcast: "' _ "$RC" "$OUT"
printf 'topobcast: 2\nselection: [\n' >"$D/prefix/etc/topobcast/site.yaml"
OUT=$(timeout 60 mpiexec -n 2 env -u TOPOBCAST_CONFIG LD_PRELOAD="$SITE_LIB" TOPOBCAST_STATS=1 "$APP" 2>&1)
RC=$?
expect_fallback "a broken site file" "the site configuration (TOPOBCAST_CONFIG unset): $D/prefix/etc/topobcast/site.yaml:3:"
rm -rf "$D/prefix"

# One rank with a different file (MPMD launch): detected by the agreement.
OUT=$(timeout 60 mpiexec -n 1 env LD_PRELOAD="$LIB" TOPOBCAST_CONFIG="$D/good.yaml" TOPOBCAST_STATS=1 "$APP" : \
    -n 1 env LD_PRELOAD="$LIB" TOPOBCAST_CONFIG="$D/flat.yaml" TOPOBCAST_STATS=1 "$APP" 2>&1)
RC=$?
expect_fallback "one rank with another file" "have different settings"

# One reader: world rank 0 reads the file inside MPI_Init and broadcasts its
# bytes; a rank whose environment differs from rank 0's (no file, another
# size limit) is still detected, with one warning.
mpmd() { # ENV-OF-RANK-0 -- ENV-OF-RANK-1: $OUT, $RC of bcast_app on 2 ranks
    local a=() b=()
    while [ "$1" != "--" ]; do a+=("$1"); shift; done
    shift
    b=("$@")
    OUT=$(timeout 60 mpiexec -n 1 env LD_PRELOAD="$LIB" TOPOBCAST_STATS=1 "${a[@]}" "$APP" : \
        -n 1 env LD_PRELOAD="$LIB" TOPOBCAST_STATS=1 "${b[@]}" "$APP" 2>&1)
    RC=$?
}
mpmd TOPOBCAST_CONFIG="$D/good.yaml" --
expect_fallback "rank 1 without TOPOBCAST_CONFIG" "have different settings"
mpmd -- TOPOBCAST_CONFIG="$D/good.yaml"
expect_fallback "rank 0 without TOPOBCAST_CONFIG" "have different settings"
mpmd TOPOBCAST_CONFIG="$D/good.yaml" -- TOPOBCAST_CONFIG="$D/good.yaml" TOPOBCAST_CONFIG_MAX_BYTES=100
expect_fallback "rank 1 with a smaller TOPOBCAST_CONFIG_MAX_BYTES" "could not be loaded on some ranks"
# TOPOBCAST_DISABLE and TOPOBCAST_STATS set on one rank only: every rank
# follows world rank 0's (broadcast inside MPI_Init), so none makes a
# collective call the others do not (each of these hung when every rank
# followed its own value).
mpmd_raw() { # ENV-OF-RANK-0 -- ENV-OF-RANK-1, without mpmd's TOPOBCAST_STATS=1
    local a=() b=()
    while [ "$1" != "--" ]; do a+=("$1"); shift; done
    shift
    b=("$@")
    OUT=$(timeout 60 mpiexec -n 1 env LD_PRELOAD="$LIB" "${a[@]}" "$APP" : -n 1 env LD_PRELOAD="$LIB" "${b[@]}" "$APP" 2>&1)
    RC=$?
}
mpmd -- TOPOBCAST_DISABLE=1
expect_fallback "rank 1 with TOPOBCAST_DISABLE=1" "TOPOBCAST_DISABLE differ"
mpmd TOPOBCAST_DISABLE=1 --
check "rank 0 with TOPOBCAST_DISABLE=1: every rank passes through (status $RC, data correct, no line of the library's)" \
    bash -c '[ "$1" -eq 0 ] && grep -q "all data correct" <<<"$2" && ! grep -q "^topobcast: " <<<"$2"' _ "$RC" "$OUT"
mpmd_raw TOPOBCAST_STATS=1 --
check "TOPOBCAST_STATS=1 on rank 0 only: statistics of both ranks (status $RC, data correct, 7 calls)" \
    bash -c '[ "$1" -eq 0 ] && grep -q "all data correct" <<<"$2" && grep -q "^topobcast: stats: algorithm=default calls=7 " <<<"$2"' \
    _ "$RC" "$OUT"
mpmd_raw -- TOPOBCAST_STATS=1
check "TOPOBCAST_STATS=1 on rank 1 only: no statistics, as rank 0 says (status $RC, data correct)" \
    bash -c '[ "$1" -eq 0 ] && grep -q "all data correct" <<<"$2" && ! grep -q "^topobcast: stats" <<<"$2"' _ "$RC" "$OUT"
if command -v strace >/dev/null; then
    # 4 ranks: the file is opened by one process only
    OUT=$(timeout 120 strace -f -qq -e trace=openat -o "$D/strace.txt" mpiexec -n 4 env LD_PRELOAD="$LIB" \
        TOPOBCAST_CONFIG="$D/good4.yaml" TOPOBCAST_STATS=1 "$APP" 2>&1)
    RC=$?
    opens=$(grep -c 'good4\.yaml.*= [0-9]' "$D/strace.txt")
    check "one reader: 4 ranks ran the table (data correct, rules fired)" \
        bash -c 'grep -q "all data correct" <<<"$1" && grep -q "algorithm=pipeline calls=4" <<<"$1"' _ "$OUT"
    check "one reader: the file was opened once for 4 ranks (strace counted $opens)" [ "$opens" -eq 1 ]
else
    ok "one reader: strace counts skipped (no strace)"
fi

# The good file is used: both rules fire, no warning.
run_mpi 2 60 TOPOBCAST_CONFIG="$D/good.yaml" TOPOBCAST_STATS=1 -- "$APP"
check "good config: data correct" grep -q "all data correct" <<<"$OUT"
check "good config: no warning" [ "$(warnings)" -eq 0 ]
check "good config: small messages by rule 1 (binomial)" grep -q "algorithm=binomial calls=3" <<<"$OUT"
check "good config: large messages by rule 2 (pipeline)" grep -q "algorithm=pipeline calls=4" <<<"$OUT"
check "good config: rule counts (numbered from 1)" \
    bash -c 'grep -q "rule=1 line=.* calls=3" <<<"$1" && grep -q "rule=2 line=.* calls=4" <<<"$1"' _ "$OUT"
# A TOPOBCAST_CONFIG_MAX_BYTES that is not a size is a bad knob like any:
# one warning, its default (64M), and the file is used.
run_mpi 2 60 TOPOBCAST_CONFIG="$D/good.yaml" TOPOBCAST_CONFIG_MAX_BYTES=lots TOPOBCAST_STATS=1 -- "$APP"
check "TOPOBCAST_CONFIG_MAX_BYTES=lots: one warning naming it and the default, the table used" \
    bash -c '[ "$1" -eq 0 ] && grep -q "all data correct" <<<"$2" && [ "$3" -eq 1 ] &&
             grep -q "TOPOBCAST_CONFIG_MAX_BYTES=.lots. is not a size .*using 64M" <<<"$2" &&
             grep -q "algorithm=pipeline calls=4" <<<"$2" && ! grep -q "fallback calls" <<<"$2"' _ "$RC" "$OUT" "$(warnings)"
# TOPOBCAST_ALGORITHM still overrides the table.
run_mpi 2 60 TOPOBCAST_CONFIG="$D/good.yaml" TOPOBCAST_ALGORITHM=knomial TOPOBCAST_STATS=1 -- "$APP"
check "algorithm overrides table" grep -q "algorithm=knomial calls=7" <<<"$OUT"
# A level name in TOPOBCAST_ALGORITHM that the topology does not have is a
# typo: one warning naming the levels there are, and MPI_Bcast -- not a
# quietly flatter tree.
run_mpi 2 60 TOPOBCAST_CONFIG="$D/good.yaml" TOPOBCAST_ALGORITHM="magpie:levels=nod" TOPOBCAST_STATS=1 -- "$APP"
check "misspelled level: exit status 0" [ "$RC" -eq 0 ]
check "misspelled level: data correct" grep -q "all data correct" <<<"$OUT"
check "misspelled level: exactly one warning" [ "$(warnings)" -eq 1 ]
check "misspelled level: warning names the topology's levels" \
    grep -qF "expected levels named in the topology (node), got 'nod'" <<<"$OUT"
check "misspelled level: default used" grep -q "algorithm=default calls=7" <<<"$OUT"
run_mpi 2 60 TOPOBCAST_CONFIG="$D/good.yaml" TOPOBCAST_ALGORITHM="magpie:levels=node" TOPOBCAST_STATS=1 -- "$APP"
check "existing level: no warning" [ "$(warnings)" -eq 0 ]
check "existing level: used" grep -q "algorithm=magpie calls=7" <<<"$OUT"
# Without a file the names are those of the zero-configuration hierarchy.
run_mpi 2 60 TOPOBCAST_ALGORITHM="interpipe:levels=socket" TOPOBCAST_STATS=1 -- "$APP"
check "zero-config misspelled level: one warning" [ "$(warnings)" -eq 1 ]
check "zero-config misspelled level: names node, package, numa" \
    grep -qF "zero-configuration hierarchy (node, package, numa), got 'socket'" <<<"$OUT"
check "zero-config misspelled level: default used, data correct" \
    bash -c 'grep -q "algorithm=default calls=7" <<<"$1" && grep -q "all data correct" <<<"$1"' _ "$OUT"
# topobcast-bench refuses such a spec before timing anything.
OUT=$(timeout 60 mpiexec -n 2 env TOPOBCAST_CONFIG="$D/good.yaml" "$BUILD/bin/topobcast-bench" -a "magpie2:levels=node:base=flat" -s 1K -r 2 2>&1)
check "bench names the bad level" grep -qF "got 'node:base=flat'" <<<"$OUT"
# Its own arguments: the bad one named, status 2; an unwritable --csv
# said before anything is timed.
for a in "-s:abc:not a list of sizes" "-r:0:at least 1" "--bogus:x:unknown option"; do
    IFS=: read -r opt val why <<<"$a"
    OUT=$(timeout 60 mpiexec -n 2 "$BUILD/bin/topobcast-bench" "$opt" "$val" 2>&1)
    RC=$?
    check "bench $opt $val: status 2, names it ($why)" \
        bash -c '[ "$1" -eq 2 ] && grep -qE -- "^topobcast-bench: $2( $3)?: .*$4" <<<"$5"' _ "$RC" "$opt" "$val" "$why" "$OUT"
done
for a in "--bogus:unknown option" "-r:needs a value"; do
    IFS=: read -r opt why <<<"$a"
    OUT=$(timeout 60 mpiexec -n 2 "$BUILD/bin/topobcast-bench" -s 1K "$opt" 2>&1)
    RC=$?
    check "bench ... $opt (last): status 2, $why" \
        bash -c '[ "$1" -eq 2 ] && grep -qx -- "topobcast-bench: $2: $3" <<<"$4"' _ "$RC" "$opt" "$why" "$OUT"
done
OUT=$(timeout 60 mpiexec -n 2 "$BUILD/bin/topobcast-bench" -a binomial -s 1K -r 2 --csv "$D/no-such-dir/b.csv" 2>&1)
RC=$?
check "bench --csv in a missing directory: status 2 before timing (status $RC)" \
    bash -c '[ "$1" -eq 2 ] && grep -q "cannot write .*no-such-dir/b.csv" <<<"$2" && ! grep -q "binomial" <<<"$2"' _ "$RC" "$OUT"
# More ranks than cores: the bench says once that its timings are noise;
# within the cores it says nothing.
over=$(($(nproc) + 1))
if [ "$over" -le 8 ]; then
    OUT=$(timeout 120 mpiexec -n "$over" "$BUILD/bin/topobcast-bench" -a binomial -s 1K -r 2 -w 0 2>&1)
    RC=$?
    check "bench on $over ranks, $(nproc) cores: one warning naming both (status $RC)" \
        bash -c '[ "$1" -eq 0 ] && [ "$(grep -c "^topobcast-bench: warning: $2 ranks run on a host with $3 cores" <<<"$4")" -eq 1 ]' \
        _ "$RC" "$over" "$(nproc)" "$OUT"
else
    echo "ok bench crowded # skip: $(nproc) cores, more ranks than 8"
fi
OUT=$(timeout 120 mpiexec -n 1 "$BUILD/bin/topobcast-bench" -a binomial -s 1K -r 2 -w 0 2>&1)
RC=$?
check "bench on 1 rank: no crowding warning (status $RC)" \
    bash -c '[ "$1" -eq 0 ] && ! grep -q "warning: .* ranks run on a host" <<<"$2"' _ "$RC" "$OUT"
# The build for the other MPI preloaded: one line that says so, status 1
# (it died of a segmentation fault in MPI_Init).  Once, from the MPICH
# pass: it needs both builds (make check makes build/openmpi).
OMPI_DIR=${TB_OPENMPI_BUILD:-build/openmpi}
if [ "${TB_MPI_FLAVOR:-mpich}" != mpich ]; then
    :
elif command -v mpiexec.openmpi >/dev/null && command -v mpiexec.mpich >/dev/null &&
    [ -x "$OMPI_DIR/bin/bcast_app" ] && [ -e "$OMPI_DIR/lib/libtopobcast.so" ]; then
    OUT=$(timeout 60 mpiexec.openmpi --allow-run-as-root --oversubscribe -n 2 -x LD_PRELOAD="$LIB" \
        "$OMPI_DIR/bin/bcast_app" 2>&1)
    RC=$?
    check "MPICH build preloaded into an Open MPI program: status $RC, one line naming both" \
        bash -c '[ "$1" -ne 0 ] && [ "$(grep -c "^topobcast: this libtopobcast was built for MPICH, but the program runs Open MPI" <<<"$2")" -eq 1 ] && ! grep -qi "segmentation" <<<"$2"' _ "$RC" "$OUT"
    OUT=$(timeout 60 mpiexec.mpich -n 2 env LD_PRELOAD="$PWD/$OMPI_DIR/lib/libtopobcast.so" "$BUILD/bin/bcast_app" 2>&1)
    RC=$?
    check "Open MPI build preloaded into an MPICH program: status $RC, one line naming both" \
        bash -c '[ "$1" -ne 0 ] && [ "$(grep -c "^topobcast: this libtopobcast was built for Open MPI, but the program runs MPICH" <<<"$2")" -eq 1 ]' _ "$RC" "$OUT"
else
    echo "ok wrong-build # skip: needs mpiexec.openmpi, mpiexec.mpich and $OMPI_DIR (make openmpi)"
fi
