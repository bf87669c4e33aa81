# plugins/common: small helpers the bundled plugins share (option getters,
# natural order, media types, and the core's address check, so that a
# plugin leaves out what the core would refuse), linked into each as a PIC
# convenience library; its symbols stay hidden, so every plugin still
# exports only its entry.
noinst_LTLIBRARIES += plugins/common/libplugin_common.la
plugins_common_libplugin_common_la_SOURCES = \
	plugins/common/options.c plugins/common/options.h \
	plugins/common/natural.c plugins/common/natural.h \
	plugins/common/buf.c plugins/common/buf.h \
	plugins/common/media.c plugins/common/media.h \
	plugins/common/filewatch.c plugins/common/filewatch.h \
	core/address.c core/address.h
