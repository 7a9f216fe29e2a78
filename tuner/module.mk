# topobcast-bench (and, later, the tuner): MPI tools linked statically with
# the library so they can call topobcast_bcast_algorithm for any spec, and
# PMPI_Bcast for "default", in the same run.
BENCH_BIN   := $(BUILD)/bin/topobcast-bench
BENCH_OBJS  := $(BUILD)/obj/tuner/bench.o $(BUILD)/obj/tuner/timing.o
TOOL_BINS   += $(BENCH_BIN)

all: $(BENCH_BIN)

$(BUILD)/obj/tuner/%.o: tuner/%.c $(wildcard tuner/*.h libtopobcast/include/*.h)
	@mkdir -p $(dir $@)
	$(MPICC) $(TOOL_CFLAGS) -Ituner -c $< -o $@

$(BENCH_BIN): $(BENCH_OBJS) $(LIB_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS_COMMON) -o $@ $(BENCH_OBJS) $(LIB_A) $(DEP_LIBS)
