# tfos/wire: the wire of TensorFlowOnSpark's reservation protocol, shared
# by `muster reserve` (tfos/server/) and the spark backend (plugins/spark/):
# a restricted pickle codec, the length framing with opt-in HMAC-SHA256
# (libcrypto, loaded only when a key needs it: crypto.h),
# and the protocol's messages, template and ClusterSpec.  A convenience
# library: its PIC objects go into libmuster and into spark.so, which have
# lib/libutil.la already; its tests and the benchmark link that too.
if BUILD_SPARK
noinst_LTLIBRARIES += tfos/wire/libtfoswire.la
tfos_wire_libtfoswire_la_SOURCES = \
	tfos/wire/pickle.h tfos/wire/pickle_internal.h \
	tfos/wire/pickle_value.c \
	tfos/wire/pickle_decode.c \
	tfos/wire/pickle_encode.c \
	tfos/wire/frame.h tfos/wire/frame.c \
	tfos/wire/crypto.h tfos/wire/crypto.c \
	tfos/wire/auth.c \
	tfos/wire/protocol.h tfos/wire/protocol.c \
	tfos/wire/cluster.c
# OpenSSL's headers only: crypto.c dlopen()s libcrypto when a key needs it.
tfos_wire_libtfoswire_la_CPPFLAGS = $(AM_CPPFLAGS) $(LIBCRYPTO_CFLAGS)
tfos_wire_libtfoswire_la_LIBADD = -lm

# Codec, framing and protocol tests (cmocka).  Fixtures come from the
# machine's own python3 at run time, in a temporary directory.
if HAVE_CMOCKA
reservation_tests = \
	tests/reservation/test_pickle \
	tests/reservation/test_pickle_python \
	tests/reservation/test_frame \
	tests/reservation/test_protocol
check_PROGRAMS += $(reservation_tests)
TESTS += $(reservation_tests)

reservation_test_cppflags = $(AM_CPPFLAGS) -I$(top_srcdir)/tfos/wire $(LIBCRYPTO_CFLAGS)
reservation_test_cflags = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
reservation_test_ldadd = tfos/wire/libtfoswire.la lib/libutil.la $(LIBCRYPTO_LIBS) $(CMOCKA_LIBS)

tests_reservation_test_pickle_SOURCES = tests/reservation/test_pickle.c
tests_reservation_test_pickle_CPPFLAGS = $(reservation_test_cppflags)
tests_reservation_test_pickle_CFLAGS = $(reservation_test_cflags)
tests_reservation_test_pickle_LDADD = $(reservation_test_ldadd)

tests_reservation_test_pickle_python_SOURCES = tests/reservation/test_pickle_python.c
tests_reservation_test_pickle_python_CPPFLAGS = $(reservation_test_cppflags)
tests_reservation_test_pickle_python_CFLAGS = $(reservation_test_cflags)
tests_reservation_test_pickle_python_LDADD = $(reservation_test_ldadd)

tests_reservation_test_frame_SOURCES = tests/reservation/test_frame.c
tests_reservation_test_frame_CPPFLAGS = $(reservation_test_cppflags)
tests_reservation_test_frame_CFLAGS = $(reservation_test_cflags)
tests_reservation_test_frame_LDADD = $(reservation_test_ldadd)

tests_reservation_test_protocol_SOURCES = tests/reservation/test_protocol.c
tests_reservation_test_protocol_CPPFLAGS = $(reservation_test_cppflags)
tests_reservation_test_protocol_CFLAGS = $(reservation_test_cflags)
tests_reservation_test_protocol_LDADD = $(reservation_test_ldadd)
endif
endif

EXTRA_DIST += tests/reservation/gen_fixtures.py
