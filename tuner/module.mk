# The tuner's objects.
$(BUILD)/obj/tuner/%.o: tuner/%.c $(wildcard tuner/*.h timing/*.h libtopobcast/include/*.h libtopobcast/private/*.h)
	@mkdir -p $(dir $@)
	$(MPICC) $(TOOL_CFLAGS) -Ituner -Itopology -c $< -o $@

# topobcast-tuner: benchmark-driven selection table with model-based
# pruning, and --compare.  The pure parts (candidates, cost model, pricing,
# table, results) are also linked into the unit tests test/unit/test_tuner_*.c.
TUNER_BIN        := $(BUILD)/bin/topobcast-tuner
# The probe's measurement files are read with topology/'s reader
# (libtbtopology.a): one reader of that format.
TUNER_PURE_OBJS  := $(patsubst %,$(BUILD)/obj/tuner/%.o,candidates costs costs_probe machine model price results shapes table \
                    site site_points site_rules progress options)
TUNER_OBJS       := $(TUNER_PURE_OBJS) $(patsubst %,$(BUILD)/obj/tuner/%.o,tuner_main setup agree calibrate \
                    fanout plan measure winners model_error output comms compare compare_bound)
TOOL_BINS        += $(TUNER_BIN)

all: $(TUNER_BIN)

$(BUILD)/obj/tuner/costs_probe.o: $(TT_HDRS)

# The timing method (libtbtiming.a) is shared with topobcast-bench.
$(TUNER_BIN): $(TUNER_OBJS) $(TT_A) $(TIMING_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS_COMMON) -o $@ $(TUNER_OBJS) $(TT_A) $(TIMING_A) $(LIB_A) $(DEP_LIBS)

# Static pattern rule: takes precedence over the generic unit-test rule in
# test/module.mk, which links only libtopobcast.a.
TUNER_TEST_BINS := $(patsubst test/unit/%.c,$(BUILD)/test/unit/%,$(wildcard test/unit/test_tuner_*.c))

$(TUNER_TEST_BINS): $(BUILD)/test/unit/%: test/unit/%.c test/unit/tap.h $(TUNER_PURE_OBJS) $(TT_A) $(TIMING_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(TEST_CFLAGS) -Ituner -Itopology -Itest/unit $< -o $@ $(TUNER_PURE_OBJS) $(TT_A) $(TIMING_A) $(LIB_A) \
	    $(DEP_LIBS)
