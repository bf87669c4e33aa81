# reserve: the reservation server (`muster reserve`, <muster/reserve.h>), a
# convenience library linked into libmuster.  It needs the wire code
# (reservation/libreservation.la, which needs libcrypto), so it is built
# exactly when the spark backend is.
EXTRA_DIST += include/muster/reserve.h
if BUILD_SPARK
muster_include_HEADERS += include/muster/reserve.h
noinst_LTLIBRARIES += reserve/libreserve.la
reserve_libreserve_la_SOURCES = \
	reserve/server.h \
	reserve/server.c \
	reserve/listen.c \
	reserve/admit.c \
	reserve/clock.c \
	reserve/conn.c \
	reserve/dispatch.c \
	reserve/registry.c \
	reserve/report.c
reserve_libreserve_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/core \
	-I$(top_srcdir)/reservation $(LIBCRYPTO_CFLAGS)
reserve_libreserve_la_LIBADD = reservation/libreservation.la $(LIBCRYPTO_LIBS)
# Into libmuster (its objects carry libreservation's; the version script
# exports only muster_*).  The lead may move this line to core/local.mk.
core_libmuster_la_LIBADD += reserve/libreserve.la $(LIBCRYPTO_LIBS)
endif

# Its tests: Python clients written from the protocol description against
# `muster reserve` (tests/reserve/reserve_test.py, one scenario per script),
# and `muster resolve --exec` handing over a reserved port.
shell_tests += tests/reserve/basic.sh
shell_tests += tests/reserve/stall.sh
shell_tests += tests/reserve/garbage.sh
shell_tests += tests/reserve/duplicates.sh
shell_tests += tests/reserve/stop.sh
shell_tests += tests/reserve/timeout.sh
shell_tests += tests/reserve/retry.sh
shell_tests += tests/reserve/auth.sh
shell_tests += tests/reserve/usage.sh
shell_tests += tests/reserve/idle.sh
shell_tests += tests/reserve/caps.sh
shell_tests += tests/reserve/flood.sh
shell_tests += tests/reserve/loris.sh
shell_tests += tests/reserve/exec.sh
EXTRA_DIST += tests/reserve/run.sh \
	tests/reserve/reserve_test.py tests/reserve/flood_test.py tests/reserve/flood.py

# The benchmark (`make bench-reserve`, never run by make check): 256 and
# 1,024 concurrent executors from one load process against `muster reserve`
# and against a Python select() server written from the same description.
if BUILD_SPARK
EXTRA_PROGRAMS += bench/reserve/load
CLEANFILES += bench/reserve/load$(EXEEXT)
bench_reserve_load_SOURCES = bench/reserve/load.c
bench_reserve_load_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/reservation
bench_reserve_load_LDADD = reservation/libreservation.la $(LIBCRYPTO_LIBS)
endif
bench-reserve: bench/reserve/load$(EXEEXT) cli/muster$(EXEEXT)
	$(PYTHON3) $(srcdir)/bench/reserve/bench.py '$(abs_top_builddir)/cli/muster' \
		'$(abs_top_builddir)/bench/reserve/load' '$(abs_top_srcdir)/bench/reserve/pyserver.py'
.PHONY: bench-reserve
EXTRA_DIST += bench/reserve/bench.py bench/reserve/pyserver.py
