# plugins/platforms: the platforms that announce a job in the environment
# (torchrun, Kubeflow, Volcano, LeaderWorkerSet, SkyPilot, AWS Batch,
# Azure ML, Vertex AI, Cloud TPU, any launcher's bare contract), one file
# each, with the strict JSON reader for Vertex AI's CLUSTER_SPEC.
if BUILD_PLATFORMS
plugins_LTLIBRARIES += plugins/platforms/platforms.la
plugins_platforms_platforms_la_SOURCES = \
	plugins/platforms/platforms.c plugins/platforms/platforms.h plugins/platforms/read.c \
	plugins/platforms/build.c plugins/platforms/torchrun.c plugins/platforms/launcher.c \
	plugins/platforms/kubeflow.c plugins/platforms/trainer.c plugins/platforms/mpi_operator.c \
	plugins/platforms/volcano.c plugins/platforms/tpu.c plugins/platforms/lws.c \
	plugins/platforms/skypilot.c plugins/platforms/aws_batch.c plugins/platforms/azureml.c \
	plugins/platforms/vertex.c
plugins_platforms_platforms_la_CPPFLAGS = $(muster_json_plugin_cppflags)
plugins_platforms_platforms_la_LDFLAGS = $(muster_plugin_ldflags)
plugins_platforms_platforms_la_LIBADD = $(muster_json_plugin_libadd)
endif

# Its tests: each platform's variables and files exactly as the platform
# sets them, through the shipped chain (conf/muster.conf), so that the
# order and each entry's detect list are checked with them.
shell_tests += tests/platforms/detect.sh         # the chain's detect lists lose nothing
shell_tests += tests/platforms/torchrun.sh       # a torchrun worker; muster run refuses to nest
shell_tests += tests/platforms/torchrun-live.sh  # Debian's torchrun starting workers that ask
shell_tests += tests/platforms/launcher.sh       # any launcher's contract, muster run's workers
shell_tests += tests/platforms/kubeflow.sh       # training-operator v1 PyTorchJob
shell_tests += tests/platforms/trainer.sh        # Trainer v2: torch and JAX runtimes
shell_tests += tests/platforms/mpi_operator.sh   # MPI Operator v2, the Trainer's MPI runtime
shell_tests += tests/platforms/volcano.sh        # Volcano's env, svc and pytorch plugins
shell_tests += tests/platforms/tpu.sh            # Cloud TPU on GKE, multislice
shell_tests += tests/platforms/lws.sh            # LeaderWorkerSet
shell_tests += tests/platforms/skypilot.sh       # SkyPilot
shell_tests += tests/platforms/aws_batch.sh      # AWS Batch multi-node parallel jobs
shell_tests += tests/platforms/azureml.sh        # Azure ML's PyTorch and MPI distributions
shell_tests += tests/platforms/vertex.sh         # Vertex AI's CLUSTER_SPEC
EXTRA_DIST += tests/platforms/lib.sh tests/platforms/torchrun_worker.py
