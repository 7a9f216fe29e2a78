#!/usr/bin/env bash
# usage: bench/simgrid/build.sh [--stamp]   (`make simgrid` runs it; BUILD as in make)
#
# Builds SimGrid from Debian's own source package -- the version of the
# installed libsimgrid3.32 -- with the patches of bench/simgrid/patches/
# on top (bench/README.md, "SimGrid for P = 4096"), into BUILD/simgrid/:
#   download/  the source package, fetched once with `apt-get source`
#   src/       the package unpacked (Debian's patches applied), then ours
#   obj/       CMake's tree: obj/lib/libsimgrid.so.3.32 (a drop-in for
#              Debian's: same version, same ABI), obj/lib/simgrid/smpimain
#              and obj/smpi_script/bin/smpirun, the launcher that runs them
#              (test/smpi/smpi-opts.sh; obj/bin/smpirun is the one an
#              install would get, for /usr/local)
#   stamp      what the build is made of (package version, patches, this
#              script's configuration); the same stamp: nothing to do.
#              --stamp prints the stamp the sources make now, and exits
#   build.log  the last build's output
#   build-time.txt  one line per build: wall time, files compiled, load
# SMPI on; Java, Python, documentation, LTO, ns-3 and model checking off.
# When no deb-src entry offers the package, one is added
# (/etc/apt/sources.list.d/topobcast-deb-src.sources, then apt-get update:
# root, or sudo).  The tools it needs (./setup.sh --simgrid installs them):
# dpkg-source, patch, cmake, g++, Boost.  SIMGRID_JOBS: make's -j (2).
# A patch that changed is applied to a fresh copy of the package and only
# the files that differ are replaced, so make rebuilds what they touch.
# Exit status: 0 built or up to date, 1 a step failed (its log is named),
# 2 bad usage.
set -u
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
case ${1:-} in "" | --stamp) ;; *) echo "usage: $0 [--stamp] (BUILD=dir for another build tree)" >&2; exit 2 ;; esac
[ $# -le 1 ] || { echo "usage: $0 [--stamp]" >&2; exit 2; }
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
OUT=$BUILD/simgrid
JOBS=${SIMGRID_JOBS:-2}
PKG=libsimgrid3.32
LOG=$OUT/build.log
fail() { echo "simgrid: $*" >&2; exit 1; }
say() { echo "simgrid: $*"; }

SG_VERSION=$(dpkg-query -W -f='${source:Version}' "$PKG" 2>/dev/null)
[ -n "$SG_VERSION" ] || fail "$PKG is not installed (apt-get install libsimgrid-dev simgrid): its version is the one built"
# CMake options.  Debian's package builds with an empty CMAKE_BUILD_TYPE (a
# type would add -DNDEBUG) and SimGrid's own -O3; so does this one.  MSG and
# Fortran stay on as in Debian's library, so that it exports the same API.
CMAKE_OPTS=(-DCMAKE_BUILD_TYPE= -Denable_smpi=ON -Denable_msg=ON -Denable_fortran=ON
    -Denable_java=OFF -Denable_python=OFF -Denable_documentation=OFF -Denable_lto=OFF
    -Denable_ns3=OFF -Denable_model-checking=OFF -Denable_compile_optimizations=ON
    -Denable_compile_warnings=OFF -Denable_smpi_MPICH3_testsuite=OFF -Denable_smpi_MBI_testsuite=OFF)
# the launcher's interpreter (it unrolls "host:N" hostfiles), Debian's as in
# Debian's smpirun, not one that happens to come first in PATH
[ -x /usr/bin/python3 ] && CMAKE_OPTS+=(-DPython3_EXECUTABLE=/usr/bin/python3)
PATCHES=(bench/simgrid/patches/*.patch)
[ -e "${PATCHES[0]}" ] || fail "no patch in bench/simgrid/patches/"
stamp=$({
    echo "simgrid $SG_VERSION"
    echo "cmake ${CMAKE_OPTS[*]}"
    sha256sum "${PATCHES[@]}"
} | sha256sum | cut -d' ' -f1)
[ "${1:-}" = --stamp ] && { echo "$stamp"; exit 0; }
for t in dpkg-source patch cmake g++ make; do
    command -v "$t" >/dev/null || fail "$t not found: ./setup.sh --simgrid installs what the build needs"
done
LIBSO=$OUT/obj/lib/libsimgrid.so.3.32
LAUNCHER=$OUT/obj/smpi_script/bin/smpirun
if [ -e "$LIBSO" ] && [ -x "$OUT/obj/lib/simgrid/smpimain" ] && [ -x "$LAUNCHER" ] &&
    [ "$(cat "$OUT/stamp" 2>/dev/null)" = "$stamp" ]; then
    say "up to date ($LIBSO: Debian's simgrid $SG_VERSION + ${#PATCHES[@]} patches)"
    exit 0
fi
mkdir -p "$OUT/download" || fail "cannot create $OUT"
: >"$LOG"
rm -f "$OUT/stamp"

# ---- 1. Debian's source package (kept in download/) -----------------------------
DSC=$OUT/download/simgrid_${SG_VERSION#*:}.dsc
if [ ! -e "$DSC" ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    if ! apt-cache showsrc simgrid 2>/dev/null | grep -qx "Version: $SG_VERSION"; then
        # a deb-src entry for this release's archive, beside the deb ones
        codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
        [ -n "$codename" ] || fail "no VERSION_CODENAME in /etc/os-release: add a deb-src entry for simgrid $SG_VERSION by hand"
        uri=$(sed -n 's/^URIs: *\([^ ]*debian\/*\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
        say "adding a deb-src entry ($codename, ${uri:-http://deb.debian.org/debian}) and running apt-get update"
        printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
            "${uri:-http://deb.debian.org/debian}" "$codename" |
            $SUDO tee /etc/apt/sources.list.d/topobcast-deb-src.sources >/dev/null ||
            fail "cannot write /etc/apt/sources.list.d/topobcast-deb-src.sources (root or sudo needed)"
        $SUDO apt-get update >>"$LOG" 2>&1 || fail "apt-get update failed: $LOG"
    fi
    say "fetching Debian's source package simgrid $SG_VERSION"
    (cd "$OUT/download" && apt-get source --download-only "simgrid=$SG_VERSION") >>"$LOG" 2>&1 ||
        fail "apt-get source simgrid=$SG_VERSION failed: $LOG"
    [ -e "$DSC" ] || fail "apt-get source left no $DSC: $LOG"
fi

# ---- 2. unpack, apply the patches, keep what did not change ----------------------
say "unpacking simgrid $SG_VERSION and applying ${#PATCHES[@]} patches"
# (unpacked beside the .dsc: elsewhere dpkg-source copies the tarball there)
NEW=$OUT/download/src.new
rm -rf "$NEW"
(cd "$OUT/download" && dpkg-source -x "$(basename "$DSC")" src.new) >>"$LOG" 2>&1 || fail "dpkg-source -x failed: $LOG"
for p in "${PATCHES[@]}"; do
    echo "== $p" >>"$LOG"
    patch -d "$NEW" -p1 --batch --forward --no-backup-if-mismatch <"$p" >>"$LOG" 2>&1 ||
        fail "$p does not apply to simgrid $SG_VERSION: $LOG"
done
if [ -d "$OUT/src" ]; then
    # only the files whose content differs get a new time stamp
    n=0
    while IFS= read -r -d '' f; do
        cmp -s "$NEW/$f" "$OUT/src/$f" && continue
        if ! { mkdir -p "$(dirname "$OUT/src/$f")" && cp "$NEW/$f" "$OUT/src/$f"; }; then
            fail "cannot update $OUT/src/$f"
        fi
        n=$((n + 1))
    done < <(cd "$NEW" && find . -type f -print0)
    rm -rf "$NEW"
    say "$n files of src/ changed"
else
    mv "$NEW" "$OUT/src" || fail "cannot move $NEW"
fi

# ---- 3. configure and build --------------------------------------------------------
say "configuring (log: $LOG)"
# (from obj/: a check of SimGrid's CMake leaves a program in the current
# directory)
mkdir -p "$OUT/obj" || fail "cannot create $OUT/obj"
(cd "$OUT/obj" && cmake -S "$OUT/src" -B . "${CMAKE_OPTS[@]}") >>"$LOG" 2>&1 || fail "cmake failed: $LOG"
say "building libsimgrid and smpimain with make -j$JOBS (about 11 minutes on 2 free cores; log: $LOG)"
t0=$(date +%s)
mark=$(wc -l <"$LOG")
nice -n 5 make -C "$OUT/obj" -j"$JOBS" simgrid smpimain >>"$LOG" 2>&1 || fail "make failed: $LOG"
secs=$(($(date +%s) - t0))
ncomp=$(tail -n +"$((mark + 1))" "$LOG" | grep -c 'Building ')
for f in "$LIBSO" "$OUT/obj/lib/simgrid/smpimain" "$LAUNCHER"; do
    [ -e "$f" ] || fail "the build left no $f: $LOG"
done
# Drop-in: every MPI, PMPI, Fortran and smpi_ symbol of Debian's library is
# in this one too (its ns-3 and Java parts are left out, internal symbols).
deb_lib=$(dpkg -L "$PKG" | grep '/libsimgrid\.so\.3\.32$' | head -1)
if [ -n "$deb_lib" ]; then
    missing=$(comm -23 <(nm -D --defined-only "$deb_lib" | awk '{ print $NF }' | grep -E '^(P?MPI_|p?mpi_|smpi_)' | sort -u) \
        <(nm -D --defined-only "$LIBSO" | awk '{ print $NF }' | sort -u))
    [ -z "$missing" ] || fail "symbols of $deb_lib missing from $LIBSO: $(echo "$missing" | head -5 | tr '\n' ' ')"
fi
echo "make -j$JOBS simgrid smpimain: $secs s wall, files compiled: $ncomp (nice -n 5, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))" \
    >>"$OUT/build-time.txt"
echo "$stamp" >"$OUT/stamp"
say "built $LIBSO in $secs s, files compiled: $ncomp (Debian's simgrid $SG_VERSION + ${#PATCHES[@]} patches)"
