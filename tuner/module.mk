# The tuner's objects.
$(BUILD)/obj/tuner/%.o: tuner/%.c $(wildcard tuner/*.h timing/*.h libtopobcast/include/*.h libtopobcast/private/*.h)
	@mkdir -p $(dir $@)
	$(MPICC) $(TOOL_CFLAGS) -Ituner -c $< -o $@

# topobcast-tuner: benchmark-driven selection table with model-based
# pruning, and --compare.  The pure parts (candidates, cost model, table,
# results, the probe's file loader) are also linked into the unit tests
# test/unit/test_tuner_*.c.
TUNER_BIN        := $(BUILD)/bin/topobcast-tuner
# The probe's measurement-file loader (probe/save.c, meas.c) is the tuner's
# too: one reader of that format.
TUNER_PURE_OBJS  := $(patsubst %,$(BUILD)/obj/tuner/%.o,candidates costs costs_probe model results table) \
                    $(BUILD)/obj/probe/meas.o $(BUILD)/obj/probe/save.o
TUNER_OBJS       := $(TUNER_PURE_OBJS) $(patsubst %,$(BUILD)/obj/tuner/%.o,tuner_main options setup agree calibrate \
                    fanout price plan measure progress winners model_error output compare)
TOOL_BINS        += $(TUNER_BIN)

all: $(TUNER_BIN)

$(BUILD)/obj/tuner/costs_probe.o: probe/probe.h

# The timing method (libtbtiming.a) is shared with topobcast-bench.
$(TUNER_BIN): $(TUNER_OBJS) $(TIMING_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS_COMMON) -o $@ $(TUNER_OBJS) $(TIMING_A) $(LIB_A) $(DEP_LIBS)

# Static pattern rule: takes precedence over the generic unit-test rule in
# test/module.mk, which links only libtopobcast.a.
TUNER_TEST_BINS := $(patsubst test/unit/%.c,$(BUILD)/test/unit/%,$(wildcard test/unit/test_tuner_*.c))

$(TUNER_TEST_BINS): $(BUILD)/test/unit/%: test/unit/%.c test/unit/tap.h $(TUNER_PURE_OBJS) $(LIB_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(TEST_CFLAGS) -Ituner -Itest/unit $< -o $@ $(TUNER_PURE_OBJS) $(LIB_A) $(DEP_LIBS)
