#!/usr/bin/env bash
# The layout's rules that a build can check (DESIGN.md): no call cycles
# between object files anywhere in the tree (library, topology, probe,
# tuner, bench, report), counting references from data such as the
# descriptor table's builder pointers; the library's folders are layers
# that only call down (libtopobcast/DESIGN.md); and the tools see the library only
# through include/ and private/ (their objects compile without
# libtopobcast/src, so this checks what the makefiles pass them).
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
T=layout
if [ ! -d "$BUILD/obj" ]; then
    echo "not ok $T: $BUILD/obj is missing (make)"
    exit 1
fi
out=$(test/layout/call_cycles.sh "$BUILD/obj" 2>&1)
rc=$?
if [ $rc -eq 0 ]; then
    echo "ok $T no call cycles among the objects of $BUILD/obj ($(tail -1 <<<"$out"))"
else
    echo "not ok $T call cycles among the objects of $BUILD/obj"
    sed 's/^/# /' <<<"$out" | head -20
fi
# the library's folders are layers, none used from below
layers=$(make -s --no-print-directory -pn BUILD="$BUILD" 2>/dev/null | sed -n 's/^LIB_LAYERS *:\?= *//p' | head -1)
if [ -z "$layers" ] || [ ! -d "$BUILD/obj/lib" ]; then
    echo "not ok $T the library's layers: LIB_LAYERS ('$layers') or $BUILD/obj/lib missing"
else
    # shellcheck disable=SC2086
    out=$(test/layout/layers.sh libtopobcast/src "$BUILD/obj/lib" $layers 2>&1)
    if [ $? -eq 0 ]; then
        echo "ok $T no file of libtopobcast/src uses a layer above its own ($(tail -1 <<<"$out"))"
    else
        echo "not ok $T files of libtopobcast/src that use a layer above their own"
        sed 's/^/# /' <<<"$out" | head -20
    fi
fi
# the library's own calls of the MPI functions it defines too (the
# shared library's PMPI_ layer) go through base/pmpi.c's table of MPI's
# own: no object of the library refers to one of them by name
# (libtopobcast/DESIGN.md, "Layers of the profiling interface")
SO=$BUILD/lib/libtopobcast.so
if [ ! -e "$SO" ] || [ ! -d "$BUILD/obj/lib-so" ]; then
    echo "not ok $T the PMPI_ layer: $SO or $BUILD/obj/lib-so missing (make)"
else
    served=$(nm -D --defined-only "$SO" | awk '$3 ~ /^PMPI_/ { print $3 }')
    uses=$(find "$BUILD/obj/lib" "$BUILD/obj/lib-so" -name '*.o' | LC_ALL=C sort | while read -r o; do
        nm -u "$o" | awk -v o="$o" '{ print o ": " $NF }'
    done | grep -wF -f <(printf '%s\n' "$served"))
    check_n=$(wc -w <<<"$served")
    if [ "$check_n" -gt 0 ] && [ -z "$uses" ]; then
        echo "ok $T the shared library defines $check_n PMPI_ functions and no object of it calls one by name"
    else
        echo "not ok $T the PMPI_ layer: $check_n PMPI_ functions defined; called by name:"
        sed 's/^/# /' <<<"$uses" | head -20
    fi
fi
# the tools' compile flags: include/ and private/, never src/
flags=$(make -s --no-print-directory -pn BUILD="$BUILD" 2>/dev/null | sed -n 's/^TOOL_CFLAGS *:\?= *//p' | head -1)
if [ -n "$flags" ] && ! grep -q 'libtopobcast/src' <<<"$flags" && grep -q 'libtopobcast/private' <<<"$flags"; then
    echo "ok $T the tools compile with the public and private tiers only ($flags)"
else
    echo "not ok $T TOOL_CFLAGS should name libtopobcast/private and not libtopobcast/src: '$flags'"
fi
# the map: every tracked source file is named in DESIGN.md, in the section
# of its folder (a heading "## DIR/" or "### DIR/", the top level's "## Top
# level"), as `BASENAME` or by its path; libtopobcast/'s files in
# libtopobcast/DESIGN.md, by their path below libtopobcast/ or `BASENAME`.
# Test data (test/fixtures/, test/fuzz/corpus/) is mapped per folder.
if [ ! -f DESIGN.md ] || [ ! -f libtopobcast/DESIGN.md ]; then
    echo "not ok $T DESIGN.md and libtopobcast/DESIGN.md exist"
else
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        srcs=$(git ls-files '*.c' '*.h' '*.sh' '*.py' '*.mk' '*.F90' Makefile)
    else
        srcs=$(find . -path ./build -prune -o -type f \( -name '*.[ch]' -o -name '*.sh' -o -name '*.py' \
                    -o -name '*.mk' -o -name '*.F90' -o -name Makefile \) -print | sed 's|^\./||' | sort)
    fi
    srcs=$(grep -vE '^test/(fixtures|fuzz/corpus)/' <<<"$srcs")
    # "DIR<TAB>`token`" for every backticked token of every folder's section
    named=$(awk '/^##+ / { sec = ($0 ~ /^## Top level/) ? "." : $2; sub(/\/$/, "", sec); next }
                 sec != "" { s = $0
                     while (match(s, /`[^`]+`/)) { print sec "\t" substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH) } }' DESIGN.md)
    missing=()
    nfiles=0
    while IFS= read -r f; do
        [ -n "$f" ] || continue
        nfiles=$((nfiles + 1))
        b=$(basename "$f")
        d=$(dirname "$f")
        if [ "${f#libtopobcast/}" != "$f" ]; then
            grep -qF -- "${f#libtopobcast/}" libtopobcast/DESIGN.md && continue
            grep -qF -- "\`$b\`" libtopobcast/DESIGN.md && continue
        else
            grep -qF -- "$f" DESIGN.md && continue
            grep -qxF -- "$d	\`$b\`" <<<"$named" && continue
        fi
        missing+=("$f")
    done <<<"$srcs"
    if [ ${#missing[@]} -eq 0 ] && [ "$nfiles" -gt 0 ]; then
        echo "ok $T DESIGN.md and libtopobcast/DESIGN.md name every one of the $nfiles source files"
    else
        echo "not ok $T source files without a line in DESIGN.md (or libtopobcast/DESIGN.md): ${#missing[@]} of $nfiles"
        printf '# %s\n' "${missing[@]}" | head -40
    fi
fi
