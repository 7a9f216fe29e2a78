# Benchmarks: programs and scripts that print figures; never part of
# `make check`.  `make bench-intercept` measures the cost of interception.
BENCH_PROGS := $(BUILD)/bench/intercept_cost

$(BUILD)/bench/%: bench/%.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS_COMMON) $< -o $@

.PHONY: bench-intercept
bench-intercept: all $(BENCH_PROGS)
	BUILD=$(BUILD) bench/intercept_cost.sh
