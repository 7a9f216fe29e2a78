#!/usr/bin/env bash
# One-step set-up on a fresh Debian machine: install the dependencies, build,
# and run the main job on this machine (make demo).
#   ./setup.sh              install + build + demo
#   ./setup.sh --deps-only  install the packages only
#   ./setup.sh --packages   print the package list (.ci/run installs it)
set -eu
cd "$(dirname "$0")"
PACKAGES="build-essential make mpich libmpich-dev libhwloc-dev libyaml-dev hwloc gfortran clang
 libclang-rt-14-dev valgrind libsimgrid-dev simgrid iproute2 openssh-client procps
 chromium fonts-dejavu-core"
[ "${1:-}" = "--packages" ] && { echo "$PACKAGES"; exit 0; }
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
# shellcheck disable=SC2086
$SUDO apt-get install -y --no-install-recommends $PACKAGES
[ "${1:-}" = "--deps-only" ] && exit 0
make -j"$(nproc)"
make demo
