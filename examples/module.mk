EXAMPLE_BINS := $(BUILD)/bin/bcast_app

all: $(EXAMPLE_BINS)

$(BUILD)/bin/bcast_app: examples/bcast_app.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS_COMMON) $< -o $@

# The main job on this machine: the example application under the library.
DEMO_NP ?= 2
demo: all
	@echo "== bcast_app under LD_PRELOAD=$(LIB_SO), $(DEMO_NP) ranks, with stats"
	timeout 120 mpiexec -n $(DEMO_NP) env LD_PRELOAD=$(abspath $(LIB_SO)) TOPOBCAST_STATS=1 TOPOBCAST_VERBOSE=1 $(BUILD)/bin/bcast_app
