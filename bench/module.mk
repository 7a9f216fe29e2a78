# Benchmarks: programs and scripts that print figures on this machine;
# never pass/fail tests, never part of `make check`.
#   make bench-intercept  the library's cost per call it sends to MPI_Bcast
#                         (bench/intercept_cost.sh: callgrind + timings)
#   make bench-probe      the probe's 2-rank figures next to a plain ping-pong
#                         (bench/probe_vs_pingpong.sh; BENCH_PROBE_RUNS runs)
BENCH_PROGS := $(BUILD)/bench/intercept_cost
BENCH_PROBE_RUNS ?= 5

$(BUILD)/bench/%: bench/%.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS_COMMON) $< -o $@

.PHONY: bench-intercept bench-probe
bench-intercept: all $(BENCH_PROGS)
	BUILD=$(BUILD) bench/intercept_cost.sh

bench-probe: $(PROBE_BIN) $(BUILD)/test/vcluster/vc_pingpong
	BUILD=$(BUILD) bench/probe_vs_pingpong.sh $(BENCH_PROBE_RUNS)
-include bench/scale/scale.mk
