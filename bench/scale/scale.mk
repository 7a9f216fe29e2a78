# Start-up at scale (bench/scale/README.md): not a test, never in `make check`.
#   make bench-scale   per-process time and peak RSS of loading a topology
#                      (tb_config_load) and of deriving the hierarchy and
#                      building schedules, at P = 4096, 16384, 65536
#                      (SCALE_P to change; SCALE_DISTANCE: the P that also
#                      get a file with the distance matrix)
SCALE_P ?= 4096 16384 65536
SCALE_DISTANCE ?= 4096

# An explicit rule: bench/module.mk's pattern rule compiles without the
# library's headers.  A benchmark may look inside the library (src/).
$(BUILD)/bench/scale/startup: bench/scale/startup.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(TEST_CFLAGS) $< -o $@ $(LIB_A) $(DEP_LIBS)

.PHONY: bench-scale
bench-scale: $(BUILD)/bench/scale/startup
	BUILD=$(BUILD) SCALE_DISTANCE="$(SCALE_DISTANCE)" bench/scale/startup.sh $(SCALE_P)
