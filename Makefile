# topobcast build.  `make` builds the library, tools and pkg-config file;
# `make check` runs every test and ends with "N passed, N failed".
# Each directory adds its parts in its own module.mk.

MPICC    ?= mpicc
MPIFC    ?= mpifort
PREFIX   ?= /usr/local
BUILD    ?= build
OPT      ?= -O2 -g
WERROR   ?=
CFLAGS_COMMON = -std=gnu11 $(OPT) -Wall -Wextra $(WERROR) -pthread
LIB_CFLAGS    = $(CFLAGS_COMMON) -fPIC -fvisibility=hidden -Ilibtopobcast/include -Ilibtopobcast/src
TOOL_CFLAGS   = $(CFLAGS_COMMON) -Ilibtopobcast/include -Ilibtopobcast/src
DEP_LIBS      = -lyaml -lhwloc -lm -pthread
VERSION       = 0.1.0

.PHONY: all clean check install smpi demo check-vcluster bench-smpi bench-probe
all:

include libtopobcast/module.mk
include tuner/module.mk
include probe/module.mk
include test/module.mk
-include examples/module.mk
-include test/fuzz/module.mk
-include test/smpi/module.mk
-include test/vcluster/module.mk
-include bench/module.mk

clean:
	rm -rf $(BUILD)
-include probe/probe.mk
-include tuner/report/report.mk
