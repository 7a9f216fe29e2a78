# Emulated multi-node cluster (network namespaces, needs root): `make
# check-vcluster` runs test/vcluster/check.sh, which ends with "N passed, N failed".
VC_SRCS := $(wildcard test/vcluster/*.c)
VC_BINS := $(patsubst test/vcluster/%.c,$(BUILD)/test/vcluster/%,$(VC_SRCS))
# The correctness matrix, when its source exists (check.sh skips it otherwise).
VC_MATRIX := $(filter %/bcast_matrix,$(MPIT_BINS))

$(BUILD)/test/vcluster/%: test/vcluster/%.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS_COMMON) $< -o $@

check-vcluster: $(VC_BINS) $(LIB_SO) $(VC_MATRIX)
	BUILD=$(BUILD) ./test/vcluster/check.sh
