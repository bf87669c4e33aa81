# tfos/server: the reservation server (`muster reserve`, <muster/reserve.h>),
# a convenience library linked into libmuster.  It needs the wire code
# (tfos/wire, which needs libcrypto's headers to build and loads libcrypto
# itself when a key needs it), so it is built exactly when the spark backend
# is; otherwise the library holds absent.c, the same calls failing with a
# reason, so that libmuster has one ABI (and reserve.h is installed)
# whatever configure found.
noinst_LTLIBRARIES += tfos/server/libtfosserver.la
if BUILD_SPARK
tfos_server_libtfosserver_la_SOURCES = \
	tfos/server/server.h \
	tfos/server/server.c \
	tfos/server/listen.c \
	tfos/server/admit.c \
	tfos/server/conn.c \
	tfos/server/dispatch.c \
	tfos/server/registry.c \
	tfos/server/report.c \
	tfos/server/metrics.c
tfos_server_libtfosserver_la_LIBADD = tfos/wire/libtfoswire.la
else
tfos_server_libtfosserver_la_SOURCES = tfos/server/absent.c
endif
tfos_server_libtfosserver_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tfos/wire
# Into libmuster (its objects carry the wire's; the version script exports
# only muster_*), which therefore does not link libcrypto.
core_libmuster_la_LIBADD += tfos/server/libtfosserver.la

# Its tests: Python clients written from the protocol description against
# `muster reserve` (tests/reserve/reserve_test.py, one scenario per script),
# and `muster resolve --exec` handing over a reserved port.
shell_tests += tests/reserve/basic.sh
shell_tests += tests/reserve/stall.sh
shell_tests += tests/reserve/garbage.sh
shell_tests += tests/reserve/duplicates.sh
shell_tests += tests/reserve/registrations.sh
shell_tests += tests/reserve/stop.sh
shell_tests += tests/reserve/timeout.sh
shell_tests += tests/reserve/retry.sh
shell_tests += tests/reserve/auth.sh
shell_tests += tests/reserve/usage.sh
shell_tests += tests/reserve/idle.sh
shell_tests += tests/reserve/caps.sh
shell_tests += tests/reserve/flood.sh
shell_tests += tests/reserve/loris.sh
shell_tests += tests/reserve/regflood.sh
shell_tests += tests/reserve/exec.sh
# --metrics-port: the page scraped while executors register, hostile clients.
shell_tests += tests/reserve/metrics.sh
shell_tests += tests/reserve/metrics_usage.sh
# libcrypto is loaded only when authentication needs it.
shell_tests += tests/reserve/libcrypto.sh
EXTRA_DIST += tests/reserve/run.sh \
	tests/reserve/reserve_test.py tests/reserve/flood_test.py tests/reserve/flood.py \
	tests/reserve/reg_flood.py tests/reserve/metrics_test.py

# The benchmark (`make bench-reserve`, never run by make check): 256 and
# 1,024 concurrent executors from one load process against `muster reserve`
# and against a Python select() server written from the same description.
if BUILD_SPARK
EXTRA_PROGRAMS += bench/reserve/load
CLEANFILES += bench/reserve/load$(EXEEXT)
bench_reserve_load_SOURCES = bench/reserve/load.c
bench_reserve_load_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tfos/wire
bench_reserve_load_LDADD = tfos/wire/libtfoswire.la lib/libutil.la
endif
bench-reserve: bench/reserve/load$(EXEEXT) cli/muster$(EXEEXT)
	$(PYTHON3) $(srcdir)/bench/reserve/bench.py '$(abs_top_builddir)/cli/muster' \
		'$(abs_top_builddir)/bench/reserve/load' '$(abs_top_srcdir)/bench/reserve/pyserver.py'
.PHONY: bench-reserve
EXTRA_DIST += bench/reserve/bench.py bench/reserve/pyserver.py
