# Emulated multi-node cluster (network namespaces, needs root): `make
# check-vcluster` runs test/vcluster/check.sh, which ends with "N passed, N failed".
VC_SRCS := $(wildcard test/vcluster/vc_*.c)
VC_BINS := $(patsubst test/vcluster/%.c,$(BUILD)/test/vcluster/%,$(VC_SRCS))
# Preloaded into every rank by run.sh (MPICH 4.0.2 + UCX TCP finalize hang).
VC_SHIM := $(BUILD)/test/vcluster/libvc_ucx_close.so
# The correctness matrix, when its source exists (check.sh skips it otherwise).
VC_MATRIX := $(filter %/bcast_matrix,$(MPIT_BINS))

$(BUILD)/test/vcluster/vc_%: test/vcluster/vc_%.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS_COMMON) $< -o $@

$(VC_SHIM): test/vcluster/ucx_close_shim.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) -fPIC -shared $< -o $@ -lucp -lucs -ldl

check-vcluster: $(VC_BINS) $(VC_SHIM) $(LIB_SO) $(VC_MATRIX)
	BUILD=$(BUILD) ./test/vcluster/check.sh
