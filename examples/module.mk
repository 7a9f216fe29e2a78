EXAMPLE_BINS := $(BUILD)/bin/bcast_app

all: $(EXAMPLE_BINS)

$(BUILD)/bin/bcast_app: examples/bcast_app.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS_COMMON) $< -o $@

# The main job on this machine: probe -> tuner -> compare -> report
# (report/demo-report.sh, into $(BUILD)/demo), then the example
# application under the library with the tuned table, with statistics.
DEMO_NP ?= 2
demo: all
	$(MAKE) --no-print-directory report-demo DEMO_NP=$(DEMO_NP)
	@echo "== bcast_app under LD_PRELOAD=$(LIB_SO), $(DEMO_NP) ranks, TOPOBCAST_CONFIG=$(BUILD)/demo/table.yaml"
	timeout 120 $(MPIEXEC) -n $(DEMO_NP) env LD_PRELOAD=$(abspath $(LIB_SO)) TOPOBCAST_CONFIG=$(abspath $(BUILD)/demo/table.yaml) \
	    TOPOBCAST_STATS=1 TOPOBCAST_VERBOSE=1 $(BUILD)/bin/bcast_app
	@echo "report: $(abspath $(BUILD)/demo/report.html)"
