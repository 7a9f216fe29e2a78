# One folder per layer of libtopobcast/src, from the top down: the path of
# a call (libtopobcast/DESIGN.md).  No file uses a layer above its own
# (test/layout/layers.sh, run by test/suites/05-layout.sh).
LIB_LAYERS := intercept dispatch config run plan topo base
LIB_SRCS := $(wildcard $(addprefix libtopobcast/src/,$(addsuffix /*.c,$(LIB_LAYERS))))
LIB_OBJS := $(patsubst libtopobcast/src/%.c,$(BUILD)/obj/lib/%.o,$(LIB_SRCS))
# The shared library serves the PMPI_ layer too (src/intercept/layer.h):
# its intercept/ objects are compiled again with TB_PMPI_LAYER=1, into
# $(BUILD)/obj/lib-so/.  The static library defines MPI_* only: PMPI_*
# defined there would clash with MPI's own, or take them over for the
# whole program.
LIB_SO_OBJS := $(filter-out $(BUILD)/obj/lib/intercept/%,$(LIB_OBJS)) \
               $(patsubst $(BUILD)/obj/lib/%,$(BUILD)/obj/lib-so/%,$(filter $(BUILD)/obj/lib/intercept/%,$(LIB_OBJS)))
LIB_SO   := $(BUILD)/lib/libtopobcast.so
LIB_A    := $(BUILD)/lib/libtopobcast.a
LIB_PC   := $(BUILD)/lib/pkgconfig/$(PC_NAME).pc
# pc_sed PREFIX,LIBDIR,INCLUDEDIR: the .pc for an install (make install) or
# for the build tree itself ($(LIB_PC): this tree's library and header)
pc_sed    = sed -e 's|@PREFIX@|$(1)|g' -e 's|@LIBDIR@|$(2)|g' -e 's|@INCLUDEDIR@|$(3)|g' -e 's|@NAME@|$(PC_NAME)|g' \
	      -e 's|@MPI@|$(MPI_FLAVOR)|g' -e 's|@VERSION@|$(VERSION)|g'

all: $(LIB_SO) $(LIB_A) $(LIB_PC)

# The site configuration, used when TOPOBCAST_CONFIG is unset (README, "Per
# site"): PREFIX/etc/topobcast/site.yaml, found from the shared library's
# own directory (LIBDIR's way up to PREFIX: a relocated installation finds
# its own), or at the PREFIX the library was built for when it is linked
# statically.  A new PREFIX rebuilds the one object that holds them.
empty :=
space := $(empty) $(empty)
LIB_SITE_ABS := $(abspath $(PREFIX))/etc/topobcast/site.yaml
LIB_SITE_REL := $(if $(filter $(PREFIX)/%,$(LIBDIR)),$(subst $(space),,$(foreach c,$(subst /, ,$(patsubst $(PREFIX)/%,%,$(LIBDIR))),../))etc/topobcast/site.yaml,$(LIB_SITE_ABS))
LIB_PREFIX_STAMP := $(BUILD)/obj/lib/prefix$(subst /,_,$(abspath $(PREFIX))).stamp
$(LIB_PREFIX_STAMP):
	@mkdir -p $(dir $@) && rm -f $(dir $@)prefix*.stamp && touch $@
$(BUILD)/obj/lib/config/site_path.o: $(LIB_PREFIX_STAMP)
$(BUILD)/obj/lib/config/site_path.o: LIB_CFLAGS += -DTB_SITE_CONFIG_REL='"$(LIB_SITE_REL)"' -DTB_SITE_CONFIG_ABS='"$(LIB_SITE_ABS)"'

$(BUILD)/obj/lib/%.o: libtopobcast/src/%.c $(wildcard libtopobcast/src/*/*.h libtopobcast/private/*.h libtopobcast/include/*.h)
	@mkdir -p $(dir $@)
	$(MPICC) $(LIB_CFLAGS) -c $< -o $@

$(BUILD)/obj/lib-so/%.o: libtopobcast/src/%.c $(wildcard libtopobcast/src/*/*.h libtopobcast/private/*.h libtopobcast/include/*.h)
	@mkdir -p $(dir $@)
	$(MPICC) $(LIB_CFLAGS) -DTB_PMPI_LAYER=1 -c $< -o $@

$(LIB_SO): $(LIB_SO_OBJS)
	@mkdir -p $(dir $@)
	$(MPICC) -shared -Wl,-soname,libtopobcast.so -o $@ $(LIB_SO_OBJS) $(DEP_LIBS)

$(LIB_A): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $(LIB_OBJS)

$(LIB_PC): libtopobcast/topobcast.pc.in Makefile libtopobcast/module.mk
	@mkdir -p $(dir $@)
	$(call pc_sed,$(abspath $(BUILD)),$(abspath $(dir $(LIB_SO))),$(abspath libtopobcast/include)) $< > $@

# MPICH: lib/libtopobcast.so, lib/pkgconfig/topobcast.pc, bin/topobcast-*;
# Open MPI: lib/openmpi/libtopobcast.so, lib/pkgconfig/topobcast-openmpi.pc,
# bin/topobcast-*.openmpi.  Both can be installed under one PREFIX.
# examples/module.mk adds the site's files (install-site: etc/topobcast/,
# the modulefile, the Slurm scripts).
install: all
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	$(call pc_sed,$(abspath $(PREFIX)),$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR)),$${prefix}/include) libtopobcast/topobcast.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/$(PC_NAME).pc  # for this PREFIX; libdir and includedir follow prefix (pkg-config --define-prefix)
	install -m 644 libtopobcast/include/topobcast.h $(DESTDIR)$(PREFIX)/include/
	for b in $(TOOL_BINS); do install -m 755 $$b $(DESTDIR)$(PREFIX)/bin/$$(basename $$b)$(TOOL_SUFFIX); done
