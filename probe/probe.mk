# topobcast-probe: the measurement program (MPI) and its analysis half.
# The clustering library (libtbprobe.a, probe/module.mk) is linked in; the
# object rule of probe/module.mk compiles these files too.
PROBE_SRCS := probe/main.c probe/harness.c probe/schedule.c probe/plogp.c probe/batches.c probe/loggp.c \
              probe/identity_probe.c probe/stats.c probe/sizes.c probe/meas.c probe/truth.c \
              probe/save.c probe/analyze.c probe/topo_write.c
PROBE_OBJS := $(patsubst probe/%.c,$(BUILD)/obj/probe/%.o,$(PROBE_SRCS))
PROBE_BIN  := $(BUILD)/bin/topobcast-probe
# Everything but main.c, for the unit tests of the pure pieces.
PROBE_LIBOBJS := $(filter-out $(BUILD)/obj/probe/main.o,$(PROBE_OBJS))

TOOL_BINS += $(PROBE_BIN)
all: $(PROBE_BIN)

$(PROBE_BIN): $(PROBE_OBJS) $(TBP_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(MPICC) -o $@ $(PROBE_OBJS) $(TBP_A) $(LIB_A) -lyaml -lhwloc -lm -pthread

# Static pattern rule: takes precedence over the generic unit-test rule of
# test/module.mk, which links only libtopobcast.a.
PROBE_TEST_SRCS := $(wildcard test/unit/test_probe_*.c)
PROBE_TEST_BINS := $(patsubst test/unit/%.c,$(BUILD)/test/unit/%,$(PROBE_TEST_SRCS))

$(PROBE_TEST_BINS): $(BUILD)/test/unit/%: test/unit/%.c test/unit/tap.h $(PROBE_LIBOBJS) $(TBP_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(TBP_CFLAGS) -Ilibtopobcast/src -Itest/unit $< -o $@ $(PROBE_LIBOBJS) $(TBP_A) $(LIB_A) -lyaml -lhwloc -lm -pthread

tests: $(PROBE_TEST_BINS)
