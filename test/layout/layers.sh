#!/usr/bin/env bash
# layers.sh SRC OBJ LAYER...: the library's folders are layers, LAYER...
# from the top down (libtopobcast/module.mk, LIB_LAYERS); no file may use a
# layer above its own.
#
#   - every .c and .h under SRC lies in one of the LAYER folders;
#   - a file's `#include "L/..."` names its own layer or one below it;
#   - an object under OBJ/L/ uses only symbols defined by objects of L or of
#     a layer below it (`nm -u` against `nm --defined-only`, counting
#     references from data, such as the descriptor table's builder
#     pointers).
#
# One line per fault ("up: FILE -> FILE: what"), then a count.  Exit status
# 1 if any, 0 if none, 2 on bad usage.
#
#   test/layout/layers.sh libtopobcast/src build/obj/lib intercept dispatch config run plan topo base
set -u
if [ $# -lt 3 ] || [ ! -d "$1" ] || [ ! -d "$2" ]; then
    echo "usage: $0 SRC_DIR OBJ_DIR LAYER... (the layers from the top down)" >&2
    exit 2
fi
src=$1 obj=$2
shift 2
declare -A rank
n=0
for l in "$@"; do
    rank[$l]=$n
    n=$((n + 1))
done
faults=0
fault() {
    echo "$*"
    faults=$((faults + 1))
}
# the layer of a path below SRC or OBJ, or "" when none
layer_of() {
    local rel=${1#"$2"/}
    [ "$rel" != "${rel#*/}" ] || { echo ""; return; }
    echo "${rel%%/*}"
}

# 1. files outside every layer, and 2. includes that go up
nfiles=0
while IFS= read -r f; do
    nfiles=$((nfiles + 1))
    l=$(layer_of "$f" "$src")
    if [ -z "$l" ] || [ -z "${rank[$l]+x}" ]; then
        fault "outside: $f is in no layer folder ($*)"
        continue
    fi
    while IFS= read -r inc; do
        il=${inc%%/*}
        [ -n "${rank[$il]+x}" ] || continue
        if [ "${rank[$il]}" -lt "${rank[$l]}" ]; then
            fault "up: $f -> $src/$inc: an include of layer $il, above $l"
        fi
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\/[^"]*\)".*/\1/p' "$f")
done < <(find "$src" -type f \( -name '*.c' -o -name '*.h' \) | LC_ALL=C sort)

# 3. symbols used from objects of a layer above
nobjs=$(find "$obj" -name '*.o' -type f | wc -l)
while read -r user def sym; do
    ul=$(layer_of "$user" "$obj")
    dl=$(layer_of "$def" "$obj")
    [ -n "${rank[$ul]+x}" ] && [ -n "${rank[$dl]+x}" ] || continue
    if [ "${rank[$dl]}" -lt "${rank[$ul]}" ]; then
        fault "up: $user -> $def: $sym (layer $dl, above $ul)"
    fi
done < <(find "$obj" -name '*.o' -type f | LC_ALL=C sort | while read -r o; do
    nm --defined-only "$o" 2>/dev/null | awk -v o="$o" '$2 ~ /^[A-TV-Z]$/ { print "D", o, $3 }'
    nm -u "$o" 2>/dev/null | awk -v o="$o" '{ print "U", o, $NF }'
done | awk '$1 == "D" { def[$3] = $2; next } { use[++n] = $2 " " $3 }
            END { for (k = 1; k <= n; k++) { split(use[k], u, " ");
                      if ((u[2] in def) && def[u[2]] != u[1]) print u[1], def[u[2]], u[2] } }' | LC_ALL=C sort -u)

echo "$faults fault(s): $nfiles files and $nobjs objects in $# layers ($*)"
[ "$faults" -eq 0 ]
