# libmuster: the core.  Its objects are built once into a convenience
# library, which the shared library wraps (exports limited by the version
# script) and the unit tests link directly.
noinst_LTLIBRARIES += core/libmuster-internal.la
core_libmuster_internal_la_SOURCES = \
	core/address.c core/address.h \
	core/arena.c core/arena.h \
	core/error.c core/error.h \
	core/log.c core/log.h \
	core/model.c core/model.h \
	core/nameindex.c core/nameindex.h \
	core/builder.c core/builder.h \
	core/master.c \
	core/merge.c core/merge.h \
	core/jsonw.c core/jsonw.h \
	core/emit_json.c \
	core/emit_tf_config.c \
	core/settings.c core/settings.h \
	core/includes.c core/includes.h \
	core/cfgview.c core/cfgview.h \
	core/unknown.c core/unknown.h \
	core/suggest.c core/suggest.h \
	core/loader.c core/loader.h \
	core/trust.c core/trust.h \
	core/host.c core/host.h \
	core/chain.c core/chain.h \
	core/ctx.c core/ctx.h \
	core/pathlist.c core/pathlist.h \
	core/result.c \
	core/diff.c core/diff.h \
	core/watch.c core/watch.h \
	core/watch_entries.c \
	core/watch_files.c \
	plugins/static/static.c plugins/static/static.h
core_libmuster_internal_la_CFLAGS = $(AM_CFLAGS) $(LIBCONFIG_CFLAGS)
core_libmuster_internal_la_LIBADD = $(LIBCONFIG_LIBS)

lib_LTLIBRARIES += core/libmuster.la
core_libmuster_la_SOURCES =
core_libmuster_la_LIBADD = core/libmuster-internal.la $(LIBCONFIG_LIBS)
core_libmuster_la_LDFLAGS = -no-undefined \
	-version-info $(MUSTER_LT_CURRENT):$(MUSTER_LT_REVISION):$(MUSTER_LT_AGE)
if HAVE_VERSION_SCRIPT
core_libmuster_la_LDFLAGS += -Wl,--version-script=$(srcdir)/core/libmuster.map
endif
EXTRA_DIST += core/libmuster.map
