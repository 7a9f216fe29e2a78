# Emulated multi-node cluster (network namespaces, needs root): `make
# check-vcluster` runs test/vcluster/check.sh, which ends with "N passed, N failed".
VC_SRCS := $(wildcard test/vcluster/vc_*.c)
VC_BINS := $(patsubst test/vcluster/%.c,$(BUILD)/test/vcluster/%,$(VC_SRCS))
# Preloaded into every rank by run.sh (MPICH 4.0.2 + UCX TCP finalize hang).
VC_SHIM := $(BUILD)/test/vcluster/libvc_ucx_close.so
# Also preloaded: idle ranks sleep instead of spinning (test/shim/idle_sleep.c).
VC_IDLE_SHIM := $(BUILD)/test/vcluster/libvc_idle_sleep.so
# The correctness matrix, when its source exists (check.sh skips it otherwise).
VC_MATRIX := $(filter %/bcast_matrix,$(MPIT_BINS))

$(BUILD)/test/vcluster/vc_%: test/vcluster/vc_%.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS_COMMON) $< -o $@

# Preload shims: libvc_NAME.so from NAME_shim.c; the idle one is shared
# with the suites (test/shim/).
$(BUILD)/test/vcluster/libvc_%.so: test/vcluster/%_shim.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) -fPIC -shared $< -o $@ -lucp -lucs -ldl
$(VC_IDLE_SHIM): $(IDLE_SHIM)
	@mkdir -p $(dir $@)
	cp $< $@

# The probe and the tuner run across the cluster too (check.sh part d).
VC_TOOLS := $(BUILD)/bin/topobcast-probe $(BUILD)/bin/topobcast-tuner

check-vcluster: $(VC_BINS) $(VC_SHIM) $(VC_IDLE_SHIM) $(LIB_SO) $(VC_MATRIX) $(VC_TOOLS)
	BUILD=$(BUILD) ./test/vcluster/check.sh
