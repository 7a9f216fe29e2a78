# topobcast build.  `make` builds the library, tools and pkg-config file;
# `make check` runs every test and ends with "N passed, N failed".
# Each directory adds its parts in its own module.mk.

# Two MPI libraries from the same sources, each with its own build tree,
# installed side by side (README, "Open MPI"):
#   make                      MPICH    -> build/
#   make openmpi              Open MPI -> build/openmpi/  (MPI_FLAVOR=openmpi)
# The compiler wrappers are named explicitly, so neither build depends on
# which MPI the machine's mpicc/mpiexec alternatives point to; nor do
# `make demo` and `make check`, which launch MPICH's mpiexec.mpich.
MPI_FLAVOR ?= mpich
PREFIX   ?= /usr/local
# The build tree follows the flavour; a BUILD in the environment (the test
# runner exports one for its scripts) must not send `make install
# MPI_FLAVOR=openmpi` to the MPICH tree.  `make BUILD=dir` still sets it.
ifeq ($(origin BUILD),environment)
undefine BUILD
endif
ifeq ($(MPI_FLAVOR),openmpi)
MPICC    ?= mpicc.openmpi
MPIFC    ?= mpifort.openmpi
BUILD    ?= build/openmpi
LIBDIR   ?= $(PREFIX)/lib/openmpi
PC_NAME   = topobcast-openmpi
TOOL_SUFFIX = .openmpi
# Open MPI's mpi module declares MPI_BCAST itself; its Fortran wrapper does
# not pass its own library directory, so -lmpi could find another MPI's.
FORT_MPI_MODULE_DEFS = -DMPI_MODULE_TYPED
FORT_LDFLAGS = $(addprefix -L,$(shell $(MPICC) --showme:libdirs 2>/dev/null))
else
MPICC    ?= $(if $(shell command -v mpicc.mpich),mpicc.mpich,mpicc)
MPIFC    ?= $(if $(shell command -v mpifort.mpich),mpifort.mpich,mpifort)
# the launcher of `make demo`, by name too
MPIEXEC  ?= $(if $(shell command -v mpiexec.mpich),mpiexec.mpich,mpiexec)
BUILD    ?= build
LIBDIR   ?= $(PREFIX)/lib
PC_NAME   = topobcast
TOOL_SUFFIX =
endif
OPT      ?= -O2 -g
WERROR   ?=
CFLAGS_COMMON = -std=gnu11 $(OPT) -Wall -Wextra $(WERROR) -pthread
# Header tiers: include/ is public (installed); private/ is what the tools
# may use of the library (libtopobcast/DESIGN.md); src/ is the library's own.
LIB_CFLAGS    = $(CFLAGS_COMMON) -fPIC -fvisibility=hidden -Ilibtopobcast/include -Ilibtopobcast/private -Ilibtopobcast/src
TOOL_CFLAGS   = $(CFLAGS_COMMON) -Ilibtopobcast/include -Ilibtopobcast/private
# Unit tests may look inside the library.
TEST_CFLAGS   = $(TOOL_CFLAGS) -Ilibtopobcast/src
DEP_LIBS      = -lyaml -lhwloc -lm -pthread
VERSION       = 0.1.0

.PHONY: all clean check install smpi demo check-vcluster bench-smpi openmpi
all:

include libtopobcast/module.mk
include topology/module.mk
include timing/module.mk
include probe/module.mk
include tuner/module.mk
include test/module.mk
-include examples/module.mk
-include test/fuzz/module.mk
-include test/smpi/module.mk
-include test/vcluster/module.mk

clean:
	rm -rf $(BUILD)

# The Open MPI variant: library, tools and test programs in build/openmpi/.
openmpi:
	$(MAKE) MPI_FLAVOR=openmpi all tests
include report/module.mk
include bench/module.mk
