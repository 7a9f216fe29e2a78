# The timing method (timing/timing.c: synchronised repetitions, max over
# ranks, order statistics), shared by topobcast-tuner and topobcast-bench:
# one archive both link, and the unit test test/unit/test_timing.c.
TIMING_A    := $(BUILD)/lib/libtbtiming.a
TIMING_OBJS := $(patsubst timing/%.c,$(BUILD)/obj/timing/%.o,$(wildcard timing/*.c))

$(BUILD)/obj/timing/%.o: timing/%.c timing/timing.h
	@mkdir -p $(dir $@)
	$(MPICC) $(TOOL_CFLAGS) -c $< -o $@

$(TIMING_A): $(TIMING_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $(TIMING_OBJS)

# Explicit target: takes precedence over the generic unit-test rule in
# test/module.mk, which links only libtopobcast.a.
$(BUILD)/test/unit/test_timing: test/unit/test_timing.c test/unit/tap.h timing/timing.h $(TIMING_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(TEST_CFLAGS) -Itiming -Itest/unit $< -o $@ $(TIMING_A) -lm
