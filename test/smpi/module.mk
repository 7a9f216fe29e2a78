# SimGrid SMPI builds (`make smpi`): the library objects and every program
# compiled with smpicc into $(BUILD)/smpi/.  SMPI runs all ranks in one
# process and loads the program (a shared object) once per rank, so the
# library is linked into each program rather than preloaded: SMPI declares
# MPI_* weak and PMPI_* strong, so the library's MPI_Bcast takes over.
#
#   bin/topobcast-NAME  every main.c or NAME_main.c of probe/, tuner/ and
#                       bench/ (NAME is the file name without the _main
#                       suffix, or the directory for main.c), linked with the
#                       .c files of its directory that define no main() and
#                       the archives SMPI_SHARED_<directory>
#   lib/libtbtopology.a topology/ (the probe's files and topology discovery),
#                       linked by the probe and the tuner
#   bin/NAME            test/mpi/NAME.c, linked with the library
#   bin/pingpong        test/smpi/pingpong.c (plain MPI, no library)
#
# `make bench-smpi` runs the larger simulations that are not part of CI.
SMPICC     ?= smpicc
SMPI_DIR   := $(BUILD)/smpi
SMPI_CFLAGS = -std=gnu11 $(OPT) -Wall -Wextra $(WERROR) -pthread -MMD -MP \
              -Ilibtopobcast/include -Ilibtopobcast/private -Ilibtopobcast/src -Itopology
# The library's own allocations stay private per rank even when a timing run
# turns on SMPI's automatic shared malloc (see test/smpi/smpi-opts.sh).
SMPI_LIB_FLAGS := -fvisibility=hidden -DSMPI_NO_OVERRIDE_MALLOC

SMPI_LIB_OBJS := $(patsubst %.c,$(SMPI_DIR)/obj/%.o,$(wildcard libtopobcast/src/*/*.c))
SMPI_TT_A     := $(SMPI_DIR)/lib/libtbtopology.a
SMPI_TT_OBJS  := $(patsubst %.c,$(SMPI_DIR)/obj/%.o,$(wildcard topology/*.c))

# Tools: main.c and *_main.c in these directories; the files of each
# directory without a main() are linked into each of its tools (bench/'s
# other programs are benchmarks, not tools).
SMPI_TOOL_DIRS := probe tuner bench
SMPI_MAIN_RE := ^int[[:space:]]+main[[:space:]]*[(]
smpi_mains = $(shell grep -lE '$(SMPI_MAIN_RE)' $(wildcard $(1)/*.c) /dev/null)
smpi_tool_name = topobcast-$(if $(filter main,$(basename $(notdir $(1)))),$(patsubst %/,%,$(dir $(1))),$(patsubst %_main,%,$(basename $(notdir $(1)))))

define smpi_tool_rule
SMPI_BINS += $(SMPI_DIR)/bin/$(call smpi_tool_name,$(1))
$(SMPI_DIR)/bin/$(call smpi_tool_name,$(1)): $(patsubst %.c,$(SMPI_DIR)/obj/%.o,$(1) $(2)) $(3) $$(SMPI_LIB_OBJS)
	@mkdir -p $$(dir $$@)
	$$(SMPICC) $$(SMPI_CFLAGS) -o $$@ $$^ $$(DEP_LIBS)
endef

# Archives a directory's tools also link: the probe and the tuner read and
# write the measurement files with topology/'s library, as natively, and all
# three close their output files through it; they share the timing method
# (timing/).
SMPI_TIMING_OBJS := $(patsubst timing/%.c,$(SMPI_DIR)/obj/timing/%.o,$(wildcard timing/*.c))
SMPI_SHARED_probe := $(SMPI_TT_A) $(SMPI_TIMING_OBJS)
SMPI_SHARED_tuner := $(SMPI_TT_A) $(SMPI_TIMING_OBJS)
SMPI_SHARED_bench := $(SMPI_TT_A) $(SMPI_TIMING_OBJS)

SMPI_BINS :=
$(foreach d,$(SMPI_TOOL_DIRS),$(foreach m,$(filter %/main.c %_main.c,$(call smpi_mains,$(d))),\
  $(eval $(call smpi_tool_rule,$(m),$(filter-out $(call smpi_mains,$(d)),$(wildcard $(d)/*.c)),$(SMPI_SHARED_$(d))))))

$(SMPI_TT_A): $(SMPI_TT_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

SMPI_TEST_BINS := $(patsubst test/mpi/%.c,$(SMPI_DIR)/bin/%,$(wildcard test/mpi/*.c))
SMPI_BINS += $(SMPI_TEST_BINS) $(SMPI_DIR)/bin/pingpong

$(SMPI_LIB_OBJS): SMPI_EXTRA := $(SMPI_LIB_FLAGS)
$(SMPI_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(SMPICC) $(SMPI_CFLAGS) $(SMPI_EXTRA) -c $< -o $@

$(SMPI_TEST_BINS): $(SMPI_DIR)/bin/%: $(SMPI_DIR)/obj/test/mpi/%.o $(SMPI_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(SMPICC) $(SMPI_CFLAGS) -o $@ $^ $(DEP_LIBS)

$(SMPI_DIR)/bin/pingpong: $(SMPI_DIR)/obj/test/smpi/pingpong.o
	@mkdir -p $(dir $@)
	$(SMPICC) $(SMPI_CFLAGS) -o $@ $^ -lm

smpi-check-compiler:
	@command -v $(SMPICC) >/dev/null || { echo "$(SMPICC) not found: install libsimgrid-dev (SimGrid SMPI)"; exit 1; }

smpi: smpi-check-compiler $(SMPI_BINS)

-include $(wildcard $(SMPI_DIR)/obj/*/*.d $(SMPI_DIR)/obj/*/*/*.d $(SMPI_DIR)/obj/*/*/*/*.d)

# Larger simulations, not in CI: the level ping-pongs of every platform and
# the full probe/tuner/compare pipeline (test/smpi/pipeline.sh) at the sizes
# FRAM- and BETZY-like at P=512 round-robin, the ARM1-like
# node's 96 cores socket-interleaved (24 ranks per NUMA domain, where SMPI's
# mpich selector deadlocks: the pipeline names it and compares against
# MPICH's rules instead).  A run is PLATFORM:HOSTFILE:NP[:MAX_SEGMENTS].
SMPI_BENCH_OUT ?= $(SMPI_DIR)/bench
SMPI_BENCH_RUNS ?= fram:fram-rr.txt:512 betzy:betzy-rr.txt:512 arm1:arm1-socket.txt:96:64
# The SimGrid they run (test/smpi/smpi-opts.sh, TB_SIMGRID): the patched
# build of `make simgrid` when present, first checked against Debian's
# (bench/simgrid/compare.sh, status 3: no patched build), else Debian's.
bench-smpi: smpi $(SMPI_DIR)/bin/scale_trivial
	@mkdir -p $(SMPI_BENCH_OUT)
	@BUILD=$(BUILD) bench/simgrid/compare.sh $(SMPI_BENCH_OUT)/simgrid-compare >$(SMPI_BENCH_OUT)/simgrid-compare.txt 2>&1; \
	    rc=$$?; case $$rc in 0) tail -1 $(SMPI_BENCH_OUT)/simgrid-compare.txt ;; \
	    3) echo "== no patched SimGrid (make simgrid): Debian's runs the simulations" ;; \
	    *) cat $(SMPI_BENCH_OUT)/simgrid-compare.txt; exit 1 ;; esac
	@BUILD=$(BUILD) bash -c '. test/smpi/smpi-opts.sh && echo "== SimGrid: $$SMPI_SIMGRID"' | tee $(SMPI_BENCH_OUT)/simgrid.txt
	for p in fram betzy arm1; do test/smpi/levels.sh $$p >$(SMPI_BENCH_OUT)/levels-$$p.txt || exit 1; \
	    cat $(SMPI_BENCH_OUT)/levels-$$p.txt; done
	@for r in $(SMPI_BENCH_RUNS); do \
	    set -- $$(echo $$r | tr : ' '); start=$$(date +%s); \
	    echo "== pipeline $$1 $$2 P=$$3"; \
	    PIPE_MAX_SEGMENTS=$${4:-} test/smpi/pipeline.sh test/platforms/$$1.xml test/platforms/$$2 $$3 \
	        $(SMPI_BENCH_OUT)/$$1-$$3 || exit 1; \
	    echo "== pipeline $$1 P=$$3: $$(( $$(date +%s) - start )) s wall"; \
	done

.PHONY: smpi-check-compiler
