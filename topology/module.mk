# topology/: from a probe run's measurements to a topology, without MPI --
# the records of a run and the measurement file (meas.c, save.c), ground
# truth (truth.c), the analysis and its outputs (analyze.c, topo_write.c),
# the clustering library (cluster_*.c, distance.c, graph.c), and a site's
# topology from probe passes (site_*.c, hostlist.c).  One
# archive, build/lib/libtbtopology.a, linked by the probe, the tuner, the bench and the
# report and by the unit tests of these files (test/unit/test_cluster*.c,
# test/unit/test_probe_analyze.c).  Public headers: topology.h, cluster.h.
TT_SRCS := $(wildcard topology/*.c)
TT_OBJS := $(patsubst topology/%.c,$(BUILD)/obj/topology/%.o,$(TT_SRCS))
# topology/ includes the library's private tier (config.h, topo.h ...): a change
# there rebuilds every tool object that may see it
TT_HDRS := $(wildcard topology/*.h libtopobcast/private/*.h libtopobcast/include/*.h)
TT_A    := $(BUILD)/lib/libtbtopology.a
TT_CFLAGS = $(TOOL_CFLAGS) -Itopology

all: $(TT_A)

$(BUILD)/obj/topology/%.o: topology/%.c $(TT_HDRS)
	@mkdir -p $(dir $@)
	$(MPICC) $(TT_CFLAGS) -c $< -o $@

$(TT_A): $(TT_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $(TT_OBJS)

# Static pattern rules: these explicit targets take precedence over the
# generic test rule in test/module.mk (which links only libtopobcast.a).
# The clustering tests need nothing else; the analysis test also loads
# the topology it writes with the library's loader, as does the site
# calibration's test (test_site_compose: composition, merge, host lists).
TT_CLUSTER_TEST_BINS := $(patsubst test/unit/%.c,$(BUILD)/test/unit/%,$(wildcard test/unit/test_cluster*.c))
TT_ANALYZE_TEST_BIN  := $(BUILD)/test/unit/test_probe_analyze $(BUILD)/test/unit/test_site_compose
TT_BOUND_TEST_BIN    := $(BUILD)/test/unit/test_bound

$(TT_CLUSTER_TEST_BINS) $(TT_BOUND_TEST_BIN): $(BUILD)/test/unit/%: test/unit/%.c test/unit/tap.h test/unit/test_cluster_rng.h $(TT_A) $(TT_HDRS)
	@mkdir -p $(dir $@)
	$(MPICC) $(TT_CFLAGS) -Ilibtopobcast/src -Itest/unit $< -o $@ $(TT_A) -lm

$(TT_ANALYZE_TEST_BIN): $(BUILD)/test/unit/%: test/unit/%.c test/unit/tap.h test/unit/topo_text.h $(TT_A) $(TT_HDRS) $(LIB_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(TT_CFLAGS) -Ilibtopobcast/src -Itest/unit $< -o $@ $(TT_A) $(LIB_A) $(DEP_LIBS)
