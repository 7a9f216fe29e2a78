# topobcast-bench (bench/bench_main.c): times chosen algorithms against
# PMPI_Bcast in one run.  Linked statically with the library, so it can
# call topobcast_bcast_algorithm for any spec, and with the timing method
# it shares with the tuner (libtbtiming.a, timing/module.mk), and with the
# tools' shared files (libtbtopology.a: the close of its --csv file).
BENCH_BIN   := $(BUILD)/bin/topobcast-bench
BENCH_OBJS  := $(patsubst %,$(BUILD)/obj/bench/%.o,bench_main overlap validate root opts)
TOOL_BINS   += $(BENCH_BIN)

all: $(BENCH_BIN)

$(BUILD)/obj/bench/%.o: bench/%.c $(wildcard bench/*.h timing/*.h libtopobcast/include/*.h libtopobcast/private/*.h) $(TT_HDRS)
	@mkdir -p $(dir $@)
	$(MPICC) $(TOOL_CFLAGS) -c $< -o $@

$(BENCH_BIN): $(BENCH_OBJS) $(TT_A) $(TIMING_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS_COMMON) -o $@ $(BENCH_OBJS) $(TT_A) $(TIMING_A) $(LIB_A) $(DEP_LIBS)

# Benchmarks: programs and scripts that print figures on this machine;
# never pass/fail tests, never part of `make check`.
#   make bench-intercept  the library's cost per call it sends to MPI_Bcast,
#                         alone and below a PMPI tool
#                         (bench/intercept_cost.sh: callgrind + timings)
#   make bench-probe      the probe's 2-rank figures next to a plain ping-pong
#                         (bench/probe_vs_pingpong.sh; BENCH_PROBE_RUNS runs)
#   make bench-shm        the shared-memory node stage against MPI_Bcast and
#                         the point-to-point stage, 2 ranks, here and in one
#                         node of the emulated cluster (bench/shm_stage.sh)
BENCH_PROGS := $(BUILD)/bench/intercept_cost
BENCH_PROBE_RUNS ?= 5

$(BUILD)/bench/%: bench/%.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS_COMMON) $< -o $@

.PHONY: bench-intercept bench-probe bench-shm
bench-intercept: all $(BENCH_PROGS) $(PMPI_TOOL)
	BUILD=$(BUILD) bench/intercept_cost.sh

bench-probe: $(PROBE_BIN) $(BUILD)/test/vcluster/vc_pingpong
	BUILD=$(BUILD) bench/probe_vs_pingpong.sh $(BENCH_PROBE_RUNS)

bench-shm: all
	BUILD=$(BUILD) bench/shm_stage.sh

#   make bench-scale      start-up cost of one process at P = 4096..65536:
#                         configuration load, derivation, schedule; and a
#                         new root's schedule once the cache is full
#                         (bench/scale/run.sh; SCALE_BASE=REV for a baseline)
SCALE_PROGS := $(addprefix $(BUILD)/bench/,scale_gen scale_load scale_derive scale_roots)

$(BUILD)/bench/scale_%: bench/scale/scale_%.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(TEST_CFLAGS) $< -o $@ $(LIB_A) $(DEP_LIBS)

.PHONY: bench-scale
bench-scale: $(SCALE_PROGS)
	BUILD=$(BUILD) bench/scale/run.sh

#   make bench-scale-smpi whole simulated jobs at P = 4096 on test/platforms/
#                         betzy-nps4 (bench/scale/smpi_startup.sh): wall,
#                         CPU and peak RSS of smpirun for a trivial program
#                         without and with the library, and with a topology
#                         (SCALE_SMPI_NP, SCALE_SMPI_CASES; needs `make smpi`
#                         and several GB of memory)
SCALE_SMPI_PROGS := $(SMPI_DIR)/bin/scale_trivial $(SMPI_DIR)/bin/scale_trivial_lib
SCALE_SMPI_NP ?= 4096

$(SMPI_DIR)/bin/scale_trivial: $(SMPI_DIR)/obj/bench/scale/smpi_trivial.o
	@mkdir -p $(dir $@)
	$(SMPICC) $(SMPI_CFLAGS) -o $@ $^

$(SMPI_DIR)/bin/scale_trivial_lib: $(SMPI_DIR)/obj/bench/scale/smpi_trivial.o $(SMPI_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(SMPICC) $(SMPI_CFLAGS) -o $@ $^ $(DEP_LIBS)

.PHONY: bench-scale-smpi
bench-scale-smpi: smpi $(SCALE_SMPI_PROGS)
	BUILD=$(BUILD) bench/scale/smpi_startup.sh $(SCALE_SMPI_NP) betzy-nps4 "" $(SCALE_SMPI_CASES)

# make simgrid, make simgrid-check: the patched SimGrid for the simulations at
# scale (bench/simgrid/module.mk)
include bench/simgrid/module.mk

#   make bench-site       a simulated site calibrated once, then 20 random
#                         jobs that use its table (bench/site/run.sh,
#                         bench/site/README.md): data, hierarchy against the
#                         platform's truth, speed against MPI's broadcast
#                         and against tables tuned for 6 of the jobs alone
#                         (SITE_OUT, SITE_SEED, SITE_JOBS, SITE_STEPS;
#                         its cost: bench/site/README.md)
SITE_HIER := $(SMPI_DIR)/bin/site_hier

$(SITE_HIER): $(SMPI_DIR)/obj/bench/site/site_hier.o $(SMPI_TT_A) $(SMPI_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(SMPICC) $(SMPI_CFLAGS) -o $@ $^ $(DEP_LIBS)

.PHONY: bench-site
bench-site: all smpi $(SITE_HIER)
	BUILD=$(BUILD) bench/site/run.sh
