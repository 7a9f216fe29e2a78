#!/usr/bin/env bash
# The layout's rules that a build can check (DESIGN.md): no call cycles
# between object files anywhere in the tree (library, topology, probe,
# tuner, bench, report), counting references from data such as the
# descriptor table's builder pointers; and the tools see the library only
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
# the tools' compile flags: include/ and private/, never src/
flags=$(make -s --no-print-directory -pn BUILD="$BUILD" 2>/dev/null | sed -n 's/^TOOL_CFLAGS *:\?= *//p' | head -1)
if [ -n "$flags" ] && ! grep -q 'libtopobcast/src' <<<"$flags" && grep -q 'libtopobcast/private' <<<"$flags"; then
    echo "ok $T the tools compile with the public and private tiers only ($flags)"
else
    echo "not ok $T TOOL_CFLAGS should name libtopobcast/private and not libtopobcast/src: '$flags'"
fi
