# topobcast-report: the HTML report and text summary (no MPI run needed).
# It reads the probe's measurements, builds the ground truth and clusters
# with topology/'s library (libtbtopology.a, the probe's own reader), and
# loads YAML with the library's loader (libtopobcast.a).  The figure
# files (everything but report_main.c) are also linked into the unit tests
# test/unit/test_report_*.c.
REPORT_BIN       := $(BUILD)/bin/topobcast-report
REPORT_SRCS      := $(wildcard report/*.c)
REPORT_OBJS      := $(patsubst report/%.c,$(BUILD)/obj/report/%.o,$(REPORT_SRCS))
REPORT_PURE_OBJS := $(filter-out $(BUILD)/obj/report/report_main.o,$(REPORT_OBJS))
REPORT_CFLAGS     = $(TOOL_CFLAGS) -Ireport -Itopology
REPORT_LIBS       = $(TT_A) $(LIB_A) $(DEP_LIBS)
TOOL_BINS        += $(REPORT_BIN)

all: $(REPORT_BIN)

$(BUILD)/obj/report/%.o: report/%.c $(wildcard report/*.h) $(TT_HDRS) $(wildcard libtopobcast/private/*.h)
	@mkdir -p $(dir $@)
	$(MPICC) $(REPORT_CFLAGS) -c $< -o $@

$(REPORT_BIN): $(REPORT_OBJS) $(TT_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS_COMMON) -o $@ $(REPORT_OBJS) $(REPORT_LIBS)

# Static pattern rule: takes precedence over the generic unit-test rule of
# test/module.mk, which links only libtopobcast.a.
REPORT_TEST_BINS := $(patsubst test/unit/%.c,$(BUILD)/test/unit/%,$(wildcard test/unit/test_report_*.c))

$(REPORT_TEST_BINS): $(BUILD)/test/unit/%: test/unit/%.c test/unit/tap.h $(REPORT_PURE_OBJS) $(TT_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(MPICC) $(REPORT_CFLAGS) -Itest/unit $< -o $@ $(REPORT_PURE_OBJS) $(REPORT_LIBS)

tests: $(REPORT_TEST_BINS)

# The pipeline on this machine ending with the report (for `make demo`):
# DEMO_NP ranks (examples/module.mk sets it, default 2).
.PHONY: report-demo
report-demo: all
	MPIEXEC="$(MPIEXEC)" report/demo-report.sh $(or $(DEMO_NP),2) $(BUILD)/demo
