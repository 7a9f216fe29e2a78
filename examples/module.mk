EXAMPLE_BINS := $(BUILD)/bin/bcast_app

all: $(EXAMPLE_BINS)

$(BUILD)/bin/bcast_app: examples/bcast_app.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS_COMMON) $< -o $@

# The main job on this machine: probe -> tuner -> compare -> report
# (report/demo-report.sh, into $(BUILD)/demo), then the example
# application under the library with the tuned table, with statistics.
DEMO_NP ?= 2
demo: all
	$(MAKE) --no-print-directory report-demo DEMO_NP=$(DEMO_NP)
	@echo "== bcast_app under LD_PRELOAD=$(LIB_SO), $(DEMO_NP) ranks, TOPOBCAST_CONFIG=$(BUILD)/demo/table.yaml"
	timeout 120 $(MPIEXEC) -n $(DEMO_NP) env LD_PRELOAD=$(abspath $(LIB_SO)) TOPOBCAST_CONFIG=$(abspath $(BUILD)/demo/table.yaml) \
	    TOPOBCAST_STATS=1 TOPOBCAST_VERBOSE=1 $(BUILD)/bin/bcast_app
	@echo "report: $(abspath $(BUILD)/demo/report.html)"

# make install also lays out what a site deploys besides the library and
# the tools: PREFIX/etc/topobcast/ (left empty: the library reads site.yaml
# there, which examples/slurm/site.sbatch writes; an existing one is never
# touched), the modulefile PREFIX/share/modulefiles/topobcast/VERSION (from
# examples/modules/topobcast.in, PREFIX and VERSION substituted) and the
# Slurm scripts in PREFIX/share/topobcast/slurm/.  Both MPI builds write
# the same files.
MODULEFILE_IN := examples/modules/topobcast.in
install: install-site
install-site:
	install -d $(DESTDIR)$(PREFIX)/etc/topobcast $(DESTDIR)$(PREFIX)/share/modulefiles/topobcast \
	    $(DESTDIR)$(PREFIX)/share/topobcast/slurm
	sed -e 's|@PREFIX@|$(abspath $(PREFIX))|g' -e 's|@VERSION@|$(VERSION)|g' $(MODULEFILE_IN) \
	    > $(DESTDIR)$(PREFIX)/share/modulefiles/topobcast/$(VERSION)
	install -m 755 examples/slurm/*.sbatch $(DESTDIR)$(PREFIX)/share/topobcast/slurm/
	install -m 644 examples/slurm/README.md $(DESTDIR)$(PREFIX)/share/topobcast/slurm/
.PHONY: install-site
