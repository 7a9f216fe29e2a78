#!/usr/bin/env bash
# The emulated multi-node cluster check (test/vcluster/check.sh) as part of
# `make check`.  It needs root and network namespaces; elsewhere it says so.
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null; then
    echo "ok vcluster skipped: needs root and iproute2 (run make check-vcluster as root)"
    exit 0
fi
make -s BUILD="$BUILD" check-vcluster 2>&1 | grep -v -E '^[0-9]+ passed, [0-9]+ failed$'
