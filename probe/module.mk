# topobcast-probe: the measurement program (MPI).  What comes after the
# measurement -- the records, the measurement file, the analysis, the
# topology YAML -- is topology/'s (libtbtopology.a, topology/module.mk).
PROBE_SRCS := $(wildcard probe/*.c)
PROBE_OBJS := $(patsubst probe/%.c,$(BUILD)/obj/probe/%.o,$(PROBE_SRCS))
PROBE_HDRS := $(wildcard probe/*.h)
PROBE_BIN  := $(BUILD)/bin/topobcast-probe
TBP_CFLAGS  = $(TOOL_CFLAGS) -Iprobe -Itopology

TOOL_BINS += $(PROBE_BIN)
all: $(PROBE_BIN)

$(BUILD)/obj/probe/%.o: probe/%.c $(PROBE_HDRS) $(TT_HDRS)
	@mkdir -p $(dir $@)
	$(MPICC) $(TBP_CFLAGS) -c $< -o $@

# libtbtiming.a: only its check of more ranks than cores (tbtime_crowded)
$(PROBE_BIN): $(PROBE_OBJS) $(TT_A) $(TIMING_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(MPICC) -o $@ $(PROBE_OBJS) $(TT_A) $(TIMING_A) $(LIB_A) $(DEP_LIBS)

# The unit tests of the probe's pure pieces (no MPI run) link those objects
# only: timing statistics, sizes and the LogGP fit (test_probe_measure), the
# pair-test rounds (test_probe_rounds); and topology/'s records.  Static pattern rule: takes
# precedence over the generic unit-test rule of test/module.mk, which links
# only libtopobcast.a.  (test_probe_analyze tests topology/: its rule is in
# topology/module.mk.)
TBP_PURE_OBJS   := $(patsubst %,$(BUILD)/obj/probe/%.o,timing_stats sizes loggp_fit pair_rounds sample_plan)
PROBE_TEST_BINS := $(patsubst test/unit/%.c,$(BUILD)/test/unit/%,\
                     $(filter-out test/unit/test_probe_analyze.c,$(wildcard test/unit/test_probe_*.c)))

$(PROBE_TEST_BINS): $(BUILD)/test/unit/%: test/unit/%.c test/unit/tap.h $(TBP_PURE_OBJS) $(TT_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(TBP_CFLAGS) -Itest/unit $< -o $@ $(TBP_PURE_OBJS) $(TT_A) -lm

tests: $(PROBE_TEST_BINS)
