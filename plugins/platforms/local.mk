# plugins/platforms: the platforms that announce a job in the environment
# (torchrun, Kubeflow, Volcano, LeaderWorkerSet, SkyPilot, AWS Batch,
# Azure ML, Vertex AI, Cloud TPU, any launcher's bare contract), one file
# each, with the strict JSON reader for Vertex AI's CLUSTER_SPEC.
if BUILD_PLATFORMS
plugins_LTLIBRARIES += plugins/platforms/platforms.la
plugins_platforms_platforms_la_SOURCES = \
	plugins/platforms/platforms.c plugins/platforms/platforms.h \
	plugins/platforms/read.c plugins/platforms/build.c \
	plugins/platforms/torchrun.c plugins/platforms/launcher.c \
	plugins/platforms/kubeflow.c plugins/platforms/trainer.c \
	plugins/platforms/mpi_operator.c plugins/platforms/volcano.c \
	plugins/platforms/lws.c plugins/platforms/skypilot.c \
	plugins/platforms/aws_batch.c plugins/platforms/azureml.c \
	plugins/platforms/vertex.c plugins/platforms/tpu.c
plugins_platforms_platforms_la_CPPFLAGS = $(AM_CPPFLAGS) $(CJSON_CFLAGS)
plugins_platforms_platforms_la_LDFLAGS = $(muster_plugin_ldflags)
plugins_platforms_platforms_la_LIBADD = lib/libjson.la \
	plugins/common/libplugin_common.la $(CJSON_LIBS)
endif

# Its tests: each platform's variables and files exactly as the platform
# sets them, through the shipped chain (conf/muster.conf), so that the
# order and each entry's detect list are checked with them.
shell_tests += tests/platforms/detect.sh
shell_tests += tests/platforms/torchrun.sh
shell_tests += tests/platforms/launcher.sh
shell_tests += tests/platforms/kubeflow.sh
shell_tests += tests/platforms/trainer.sh
shell_tests += tests/platforms/mpi_operator.sh
shell_tests += tests/platforms/volcano.sh
shell_tests += tests/platforms/tpu.sh
shell_tests += tests/platforms/lws.sh
shell_tests += tests/platforms/skypilot.sh
shell_tests += tests/platforms/aws_batch.sh
shell_tests += tests/platforms/azureml.sh
shell_tests += tests/platforms/vertex.sh
# Live: Debian's torchrun starting workers that ask muster.
shell_tests += tests/platforms/torchrun-live.sh
EXTRA_DIST += tests/platforms/lib.sh tests/platforms/torchrun_worker.py
