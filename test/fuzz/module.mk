# libFuzzer target for the YAML configuration loader.
#   make fuzz                          builds $(BUILD)/fuzz/fuzz_config
#   make fuzz-run FUZZ_SECONDS=60      fuzzes from the seed corpus
# New inputs go to $(BUILD)/fuzz/corpus, crashes to $(BUILD)/fuzz/crash-*;
# test/fuzz/corpus (seeds) is only read.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_BIN     := $(BUILD)/fuzz/fuzz_config
# The loader and what it reaches: the descriptor table reaches every tree,
# plan and exchange builder (plain C, no MPI call).
FUZZ_SRCS    := test/fuzz/fuzz_config.c $(addprefix libtopobcast/src/config/,yaml_tree.c yaml_node.c read_topology.c \
                read_selection.c load.c file.c config.c shape.c) $(addprefix libtopobcast/src/topo/,derive.c topo.c hier.c) \
                $(wildcard $(addprefix libtopobcast/src/plan/,algorithm.c alg_desc.c tree*.c plan*.c xchg*.c))
# topo/map.h includes mpi.h; nothing MPI is linked (no PMPI call is reached)
FUZZ_MPI_INC  = $(filter -I%,$(shell $(MPICC) -show 2>/dev/null))
FUZZ_CFLAGS   = -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
                -Ilibtopobcast/src -Ilibtopobcast/private -Ilibtopobcast/include $(FUZZ_MPI_INC)

.PHONY: fuzz fuzz-run
fuzz: $(FUZZ_BIN)

$(FUZZ_BIN): $(FUZZ_SRCS) $(wildcard libtopobcast/src/*/*.h libtopobcast/private/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SRCS) -o $@ -lyaml -lm

fuzz-run: $(FUZZ_BIN)
	@mkdir -p $(BUILD)/fuzz/corpus
	$(FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=10 -print_final_stats=1 \
	    -dict=test/fuzz/config.dict -artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/corpus test/fuzz/corpus
