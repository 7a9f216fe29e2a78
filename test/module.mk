# Unit tests: test/unit/test_*.c, linked with the static library, no MPI run.
# MPI test programs: test/mpi/*.c, plain MPI programs run under LD_PRELOAD.
# Suites: test/suites/NN-name.sh, each prints "ok NAME" / "not ok NAME" lines.
UNIT_SRCS := $(wildcard test/unit/test_*.c)
UNIT_BINS := $(patsubst test/unit/%.c,$(BUILD)/test/unit/%,$(UNIT_SRCS))
MPIT_SRCS := $(wildcard test/mpi/*.c)
MPIT_BINS := $(patsubst test/mpi/%.c,$(BUILD)/test/mpi/%,$(MPIT_SRCS))
# test/mpi/fortran_bcast.F90 is built once per Fortran binding.
FORT_BINS := $(addprefix $(BUILD)/test/mpi/fortran_bcast,_mpi _f08 _mpifh)
FORT_DEFS_mpi   := $(FORT_MPI_MODULE_DEFS)
FORT_DEFS_f08   := -DUSE_F08
FORT_DEFS_mpifh := -DUSE_MPIFH
# test/mpi/fortran_ibcast.F90: non-blocking and persistent calls, use mpi and
# use mpi_f08 (MPI 4: MPI_BCAST_INIT; not Debian's Open MPI, which is MPI 3.1).
ifneq ($(MPI_FLAVOR),openmpi)
FORT_BINS += $(addprefix $(BUILD)/test/mpi/fortran_ibcast,_mpi _f08)
endif

$(BUILD)/test/unit/%: test/unit/%.c $(wildcard test/unit/*.h) $(LIB_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(TEST_CFLAGS) -Itest/unit $< -o $@ $(LIB_A) $(DEP_LIBS)

$(BUILD)/test/mpi/%: test/mpi/%.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS_COMMON) -Ilibtopobcast/include $< -o $@ -lm

# bcast_kinds prints its calls in the form of the tool's report
$(BUILD)/test/mpi/bcast_kinds: test/tool/ptool.h

$(BUILD)/test/mpi/fortran_bcast_%: test/mpi/fortran_bcast.F90
	@mkdir -p $(dir $@)
	$(MPIFC) -O2 -g -Wall $(FORT_DEFS_$*) $< -o $@ $(FORT_LDFLAGS)

$(BUILD)/test/mpi/fortran_ibcast_%: test/mpi/fortran_ibcast.F90
	@mkdir -p $(dir $@)
	$(MPIFC) -O2 -g -Wall $(FORT_DEFS_$*) $< -o $@ $(FORT_LDFLAGS)

# Preloaded by the suites into oversubscribed MPICH runs (test/suites/lib.sh):
# a rank polling UCX with nothing to do sleeps ~20 us instead of spinning.
IDLE_SHIM := $(BUILD)/test/shim/libtb_idle_sleep.so
$(IDLE_SHIM): test/shim/idle_sleep.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) -fPIC -shared $< -o $@ -lucp -lucs -ldl

# A PMPI profiling tool written like the real ones, preloaded before or
# after the library (15-knobs, 36-pmpi-tools), for this build's MPI.
PMPI_TOOL := $(BUILD)/test/tool/libtb_ptool.so
$(PMPI_TOOL): test/tool/ptool.c test/tool/ptool.h
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS_COMMON) -fPIC -shared $< -o $@

tests: all $(UNIT_BINS) $(MPIT_BINS) $(FORT_BINS) $(IDLE_SHIM) $(PMPI_TOOL)

# make check also builds the Open MPI variant when Open MPI is installed;
# run_tests.sh reports a missing one as a failure.
check: tests $(if $(and $(filter mpich,$(MPI_FLAVOR)),$(shell command -v mpicc.openmpi)),openmpi)
	BUILD=$(BUILD) ./test/run_tests.sh
