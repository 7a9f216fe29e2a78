# Benchmarks: figures on this machine, never pass/fail tests.
#   make bench-probe   the probe's 2-rank figures next to a plain ping-pong
#                      (bench/probe_vs_pingpong.sh; BENCH_PROBE_RUNS runs)
BENCH_PROBE_RUNS ?= 5

bench-probe: $(PROBE_BIN) $(BUILD)/test/vcluster/vc_pingpong
	BUILD=$(BUILD) bench/probe_vs_pingpong.sh $(BENCH_PROBE_RUNS)
