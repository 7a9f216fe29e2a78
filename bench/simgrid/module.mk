# SimGrid for the simulations at scale (bench/README.md, "SimGrid for
# P = 4096"); none of it is part of `make check`, whose suites run Debian's
# SimGrid (test/smpi/smpi-opts.sh, TB_SIMGRID).
#   make simgrid        Debian's simgrid source package with
#                       bench/simgrid/patches/*.patch, built into
#                       $(BUILD)/simgrid/ (bench/simgrid/build.sh: about 11
#                       minutes on 2 cores; nothing to do when up to date)
#   make simgrid-check  the same small simulations under Debian's build and
#                       the patched one: identical simulated times but the
#                       first SMP-aware collective call
#                       (bench/simgrid/compare.sh; needs make simgrid)
.PHONY: simgrid simgrid-check
simgrid:
	BUILD=$(BUILD) bench/simgrid/build.sh

simgrid-check: smpi $(SMPI_DIR)/bin/scale_trivial
	BUILD=$(BUILD) bench/simgrid/compare.sh
