# topobcast-probe.  The discovery half (distance matrices, clustering,
# levels, validation, graph view) is plain C without MPI and goes into
# build/lib/libtbprobe.a, linked by the probe program and by the unit tests
# test/unit/test_cluster*.c.  Probe main/measurement files (probe/main.c,
# probe/probe_*.c) stay out of the archive.
TBP_SRCS := $(wildcard probe/cluster_*.c) probe/distance.c probe/graph.c
TBP_OBJS := $(patsubst probe/%.c,$(BUILD)/obj/probe/%.o,$(TBP_SRCS))
TBP_HDRS := $(wildcard probe/*.h)
TBP_A    := $(BUILD)/lib/libtbprobe.a
TBP_CFLAGS = $(TOOL_CFLAGS) -Iprobe

all: $(TBP_A)

$(BUILD)/obj/probe/%.o: probe/%.c $(TBP_HDRS)
	@mkdir -p $(dir $@)
	$(MPICC) $(TBP_CFLAGS) -c $< -o $@

$(TBP_A): $(TBP_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $(TBP_OBJS)

# Static pattern rule: these explicit targets take precedence over the
# generic test rule in test/module.mk (which links only libtopobcast.a).
TBP_TEST_SRCS := $(wildcard test/unit/test_cluster*.c)
TBP_TEST_BINS := $(patsubst test/unit/%.c,$(BUILD)/test/unit/%,$(TBP_TEST_SRCS))

$(TBP_TEST_BINS): $(BUILD)/test/unit/%: test/unit/%.c test/unit/tap.h $(TBP_A) $(TBP_HDRS)
	@mkdir -p $(dir $@)
	$(MPICC) $(TBP_CFLAGS) -Ilibtopobcast/src -Itest/unit $< -o $@ $(TBP_A) -lm
