#!/usr/bin/env bash
# One-step set-up on a fresh Debian machine: install the dependencies, build,
# and run the main job on this machine (make demo).
#   ./setup.sh              install + build + demo
#   ./setup.sh --deps-only  install the packages only
#   ./setup.sh --packages   print the package list (.ci/run installs it)
#   ./setup.sh --mpich-default  point mpicc/mpiexec/mpi.h back at MPICH
#   ./setup.sh --simgrid    for the simulations at scale: install what
#                           building SimGrid from Debian's source package
#                           needs, then build it with the project's patches
#                           (make simgrid: about 11 minutes; bench/README.md)
#   ./setup.sh --help       this text
# Anything else is refused (status 2) before anything is installed.
# Open MPI is installed next to MPICH (the library is built for both); its
# packages take over the mpicc/mpiexec alternatives, which are set back to
# MPICH afterwards.  The build names each MPI's wrappers explicitly.
set -eu
cd "$(dirname "$0")"
case "${1:-}" in
"" | --deps-only | --packages | --mpich-default | --simgrid) ;;
-h | --help)
    sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
    exit 0
    ;;
*)
    echo "setup.sh: unknown option '$1' (expected --deps-only, --packages, --mpich-default, --simgrid or --help); nothing installed" >&2
    exit 2
    ;;
esac
if [ $# -gt 1 ]; then
    echo "setup.sh: one option at most, got $#; nothing installed" >&2
    exit 2
fi
PACKAGES="build-essential make pkgconf mpich libmpich-dev libopenmpi-dev openmpi-bin libhwloc-dev libyaml-dev hwloc gfortran clang
 libclang-rt-14-dev valgrind libsimgrid-dev simgrid iproute2 openssh-client procps
 chromium fonts-dejavu-core"
[ "${1:-}" = "--packages" ] && { echo "$PACKAGES"; exit 0; }
# What bench/simgrid/build.sh needs besides SimGrid itself: apt-get source
# and dpkg-source, patch, and SimGrid's build dependencies for the parts
# built (not part of --packages: CI never builds it).
SIMGRID_PACKAGES="libsimgrid-dev simgrid dpkg-dev patch cmake g++ make libboost-dev libboost-context-dev
 libboost-stacktrace-dev libeigen3-dev gfortran python3"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
mpich_default() {
    local arch
    arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
    $SUDO update-alternatives --set mpi /usr/bin/mpicc.mpich
    $SUDO update-alternatives --set mpirun /usr/bin/mpirun.mpich
    $SUDO update-alternatives --set "mpi-$arch" "/usr/include/$arch/mpich"
}
[ "${1:-}" = "--mpich-default" ] && { mpich_default; exit 0; }
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
if [ "${1:-}" = "--simgrid" ]; then
    # shellcheck disable=SC2086
    $SUDO apt-get install -y --no-install-recommends $SIMGRID_PACKAGES
    make simgrid # adds a deb-src entry when none offers the package
    exit 0
fi
# shellcheck disable=SC2086
$SUDO apt-get install -y --no-install-recommends $PACKAGES
mpich_default
[ "${1:-}" = "--deps-only" ] && exit 0
make -j"$(nproc)"
make demo
