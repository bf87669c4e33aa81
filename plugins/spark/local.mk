# plugins/spark: the client of TensorFlowOnSpark's reservation protocol.
# The wire (pickle, framing, HMAC, messages) is tfos/wire/'s shared code.
if BUILD_SPARK
plugins_LTLIBRARIES += plugins/spark/spark.la
plugins_spark_spark_la_SOURCES = plugins/spark/spark.c plugins/spark/spark.h \
	plugins/spark/options.c plugins/spark/clock.c plugins/spark/conn.c plugins/spark/port.c \
	plugins/spark/session.c plugins/spark/build.c
plugins_spark_spark_la_CPPFLAGS = $(AM_CPPFLAGS) $(LIBCRYPTO_CFLAGS)
plugins_spark_spark_la_LDFLAGS = $(muster_plugin_ldflags)
plugins_spark_spark_la_LIBADD = $(muster_plugin_libadd) tfos/wire/libtfoswire.la $(LIBCRYPTO_LIBS)
endif

# Its tests: our client against a Python reservation server written from
# the protocol description (tests/spark/server.py, real pickle), and
# sixteen `muster resolve` processes against `muster reserve`.
shell_tests += tests/spark/client.sh
shell_tests += tests/spark/auth.sh
shell_tests += tests/spark/sixteen.sh
shell_tests += tests/spark/status.sh
if BUILD_SPARK
if HAVE_CMOCKA
check_PROGRAMS += tests/spark/test_spark_port
TESTS += tests/spark/test_spark_port
tests_spark_test_spark_port_SOURCES = tests/spark/test_spark_port.c
tests_spark_test_spark_port_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_spark_test_spark_port_LDADD = core/libmuster.la $(CMOCKA_LIBS)
EXTRA_tests_spark_test_spark_port_DEPENDENCIES = plugins/spark/spark.la
endif
endif
EXTRA_DIST += \
	tests/spark/lib.sh \
	tests/spark/server.py
