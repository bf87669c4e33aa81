# tests/fuzz: a libFuzzer target for every parser of untrusted input, each
# tests/fuzz/NAME.c with its seed corpus in tests/fuzz/corpus/NAME/.
# `make check` links each with replay.c, which feeds it its corpus under
# the suite's sanitizers; tests/fuzz/run.sh builds them with clang and
# libFuzzer's driver instead (FUZZ_DRIVER emptied, -fsanitize=fuzzer in
# LDFLAGS) and fuzzes each for a bounded time.  The parsers' sources are
# compiled into convenience libraries here, apart from the dlopen()ed
# plugins.
check_LTLIBRARIES += tests/fuzz/libreplay.la
tests_fuzz_libreplay_la_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz.h
FUZZ_DRIVER = tests/fuzz/libreplay.la

fuzz_cppflags = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/fuzz -I$(top_srcdir)/core $(LIBCONFIG_CFLAGS)
# The core's host services, builder and checks, which the parsers report to.
fuzz_call = tests/fuzz/call.c tests/fuzz/call.h tests/fuzz/fuzz.h
fuzz_call_ldadd = core/libmuster-internal.la $(LIBCONFIG_LIBS)
fuzz_programs = tests/fuzz/fuzz_config

tests_fuzz_fuzz_config_SOURCES = tests/fuzz/config.c tests/fuzz/files.c $(fuzz_call)
tests_fuzz_fuzz_config_CPPFLAGS = $(fuzz_cppflags)
tests_fuzz_fuzz_config_LDADD = $(FUZZ_DRIVER) $(fuzz_call_ldadd)

# Local device detection: sysfs/proc text and visible-devices variables.
fuzz_programs += tests/fuzz/fuzz_local_devices
tests_fuzz_fuzz_local_devices_SOURCES = tests/fuzz/local_devices.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_local_devices_CPPFLAGS = $(fuzz_cppflags)
tests_fuzz_fuzz_local_devices_LDADD = $(FUZZ_DRIVER) $(fuzz_call_ldadd)

# muster doctor's no_proxy matching: the list a user's environment holds.
fuzz_programs += tests/fuzz/fuzz_noproxy
tests_fuzz_fuzz_noproxy_SOURCES = tests/fuzz/noproxy.c cli/noproxy.c cli/noproxy.h tests/fuzz/fuzz.h
tests_fuzz_fuzz_noproxy_CPPFLAGS = $(fuzz_cppflags) -I$(top_srcdir)/cli
tests_fuzz_fuzz_noproxy_LDADD = $(FUZZ_DRIVER)

if BUILD_TF_CONFIG
check_LTLIBRARIES += tests/fuzz/libfuzz_tf_config.la
tests_fuzz_libfuzz_tf_config_la_SOURCES = $(plugins_tf_config_tf_config_la_SOURCES)
tests_fuzz_libfuzz_tf_config_la_CPPFLAGS = $(plugins_tf_config_tf_config_la_CPPFLAGS)
tests_fuzz_libfuzz_tf_config_la_LIBADD = $(plugins_tf_config_tf_config_la_LIBADD)

fuzz_programs += tests/fuzz/fuzz_tf_config
tests_fuzz_fuzz_tf_config_SOURCES = tests/fuzz/tf_config.c $(fuzz_call)
tests_fuzz_fuzz_tf_config_CPPFLAGS = $(fuzz_cppflags) -I$(top_srcdir)/plugins/tf_config $(CJSON_CFLAGS)
tests_fuzz_fuzz_tf_config_LDADD = $(FUZZ_DRIVER) tests/fuzz/libfuzz_tf_config.la $(fuzz_call_ldadd)
endif

if BUILD_KUBERNETES
check_LTLIBRARIES += tests/fuzz/libfuzz_k8s.la
tests_fuzz_libfuzz_k8s_la_SOURCES = $(plugins_kubernetes_kubernetes_la_SOURCES)
tests_fuzz_libfuzz_k8s_la_CPPFLAGS = $(plugins_kubernetes_kubernetes_la_CPPFLAGS)
tests_fuzz_libfuzz_k8s_la_LIBADD = $(plugins_kubernetes_kubernetes_la_LIBADD)
fuzz_k8s_cppflags = $(fuzz_cppflags) -I$(top_srcdir)/plugins/kubernetes $(LIBCURL_CFLAGS)
fuzz_k8s_ldadd = $(FUZZ_DRIVER) tests/fuzz/libfuzz_k8s.la $(fuzz_call_ldadd)

fuzz_programs += tests/fuzz/fuzz_kubeconfig tests/fuzz/fuzz_k8s_podlist tests/fuzz/fuzz_gunzip \
	tests/fuzz/fuzz_k8s_job
tests_fuzz_fuzz_kubeconfig_SOURCES = tests/fuzz/kubeconfig.c tests/fuzz/files.c $(fuzz_call)
tests_fuzz_fuzz_kubeconfig_CPPFLAGS = $(fuzz_k8s_cppflags)
tests_fuzz_fuzz_kubeconfig_LDADD = $(fuzz_k8s_ldadd)
tests_fuzz_fuzz_k8s_podlist_SOURCES = tests/fuzz/k8s_podlist.c $(fuzz_call)
tests_fuzz_fuzz_k8s_podlist_CPPFLAGS = $(fuzz_k8s_cppflags) $(LIBDEFLATE_CFLAGS)
tests_fuzz_fuzz_k8s_podlist_LDADD = $(fuzz_k8s_ldadd)
tests_fuzz_fuzz_gunzip_SOURCES = tests/fuzz/gunzip.c
tests_fuzz_fuzz_gunzip_CPPFLAGS = $(fuzz_k8s_cppflags) $(LIBDEFLATE_CFLAGS)
tests_fuzz_fuzz_gunzip_LDADD = $(fuzz_k8s_ldadd)
tests_fuzz_fuzz_k8s_job_SOURCES = tests/fuzz/k8s_job.c
tests_fuzz_fuzz_k8s_job_CPPFLAGS = $(fuzz_k8s_cppflags) $(CJSON_CFLAGS)
tests_fuzz_fuzz_k8s_job_LDADD = $(fuzz_k8s_ldadd)
# The library holds json_page.cc: linked as C++.
nodist_EXTRA_tests_fuzz_fuzz_kubeconfig_SOURCES = cxx-link.cc
nodist_EXTRA_tests_fuzz_fuzz_k8s_podlist_SOURCES = cxx-link.cc
nodist_EXTRA_tests_fuzz_fuzz_gunzip_SOURCES = cxx-link.cc
nodist_EXTRA_tests_fuzz_fuzz_k8s_job_SOURCES = cxx-link.cc
endif

if BUILD_GCE
check_LTLIBRARIES += tests/fuzz/libfuzz_gce.la
tests_fuzz_libfuzz_gce_la_SOURCES = $(plugins_gce_gce_la_SOURCES)
tests_fuzz_libfuzz_gce_la_CPPFLAGS = $(plugins_gce_gce_la_CPPFLAGS)
tests_fuzz_libfuzz_gce_la_LIBADD = $(plugins_gce_gce_la_LIBADD)

fuzz_programs += tests/fuzz/fuzz_gce
tests_fuzz_fuzz_gce_SOURCES = tests/fuzz/gce.c $(fuzz_call)
tests_fuzz_fuzz_gce_CPPFLAGS = $(fuzz_cppflags) -I$(top_srcdir)/plugins/gce $(CJSON_CFLAGS) \
	$(LIBCURL_CFLAGS)
tests_fuzz_fuzz_gce_LDADD = $(FUZZ_DRIVER) tests/fuzz/libfuzz_gce.la $(fuzz_call_ldadd)
fuzz_programs += tests/fuzz/fuzz_gce_tpu
tests_fuzz_fuzz_gce_tpu_SOURCES = tests/fuzz/gce_tpu.c
tests_fuzz_fuzz_gce_tpu_CPPFLAGS = $(tests_fuzz_fuzz_gce_CPPFLAGS)
tests_fuzz_fuzz_gce_tpu_LDADD = $(tests_fuzz_fuzz_gce_LDADD)
endif

if BUILD_LIBVIRT
check_LTLIBRARIES += tests/fuzz/libfuzz_libvirt.la
tests_fuzz_libfuzz_libvirt_la_SOURCES = $(plugins_libvirt_libvirt_la_SOURCES)
tests_fuzz_libfuzz_libvirt_la_CPPFLAGS = $(plugins_libvirt_libvirt_la_CPPFLAGS)
tests_fuzz_libfuzz_libvirt_la_LIBADD = $(plugins_libvirt_libvirt_la_LIBADD)

fuzz_programs += tests/fuzz/fuzz_libvirt
tests_fuzz_fuzz_libvirt_SOURCES = tests/fuzz/libvirt.c $(fuzz_call)
tests_fuzz_fuzz_libvirt_CPPFLAGS = $(fuzz_cppflags) -I$(top_srcdir)/plugins/libvirt $(LIBVIRT_CFLAGS)
tests_fuzz_fuzz_libvirt_LDADD = $(FUZZ_DRIVER) tests/fuzz/libfuzz_libvirt.la $(fuzz_call_ldadd)
endif

if BUILD_SPARK
fuzz_programs += tests/fuzz/fuzz_pickle tests/fuzz/fuzz_reservation
fuzz_res_cppflags = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/fuzz -I$(top_srcdir)/tfos/wire
fuzz_res_ldadd = $(FUZZ_DRIVER) tfos/wire/libtfoswire.la lib/libutil.la
tests_fuzz_fuzz_pickle_SOURCES = tests/fuzz/pickle.c
tests_fuzz_fuzz_pickle_CPPFLAGS = $(fuzz_res_cppflags)
tests_fuzz_fuzz_pickle_LDADD = $(fuzz_res_ldadd)
tests_fuzz_fuzz_reservation_SOURCES = tests/fuzz/reservation.c
tests_fuzz_fuzz_reservation_CPPFLAGS = $(fuzz_res_cppflags) $(LIBCRYPTO_CFLAGS)
tests_fuzz_fuzz_reservation_LDADD = $(fuzz_res_ldadd)
endif

# The strict JSON reader every backend shares, against cJSON's parser.
if HAVE_CJSON
fuzz_programs += tests/fuzz/fuzz_strict_json
tests_fuzz_fuzz_strict_json_SOURCES = tests/fuzz/strict_json.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_strict_json_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/fuzz $(CJSON_CFLAGS)
tests_fuzz_fuzz_strict_json_LDADD = $(FUZZ_DRIVER) lib/libjson.la lib/libutil.la $(CJSON_LIBS)
endif

fuzz_programs += tests/fuzz/fuzz_slurm_lists
tests_fuzz_fuzz_slurm_lists_SOURCES = tests/fuzz/slurm_lists.c
tests_fuzz_fuzz_slurm_lists_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/fuzz -I$(top_srcdir)/plugins/slurm
tests_fuzz_fuzz_slurm_lists_LDADD = $(FUZZ_DRIVER) plugins/slurm/libslurm_lists.la lib/libutil.la
# The scheduler backends' host files, LSB_MCPU_HOSTS and SageMaker's JSON.
fuzz_hpc_ldadd = $(FUZZ_DRIVER) plugins/common/libplugin_common.la $(fuzz_call_ldadd)
fuzz_programs += tests/fuzz/fuzz_hostfile tests/fuzz/fuzz_lsf_mcpu
tests_fuzz_fuzz_hostfile_SOURCES = tests/fuzz/hostfile.c $(fuzz_call)
tests_fuzz_fuzz_hostfile_CPPFLAGS = $(fuzz_cppflags) -I$(top_srcdir)
tests_fuzz_fuzz_hostfile_LDADD = $(fuzz_hpc_ldadd)
tests_fuzz_fuzz_lsf_mcpu_SOURCES = tests/fuzz/lsf_mcpu.c plugins/lsf/mcpu.c $(fuzz_call)
tests_fuzz_fuzz_lsf_mcpu_CPPFLAGS = $(fuzz_cppflags) -I$(top_srcdir) -I$(top_srcdir)/plugins/lsf
tests_fuzz_fuzz_lsf_mcpu_LDADD = $(fuzz_hpc_ldadd)
if BUILD_SAGEMAKER
fuzz_programs += tests/fuzz/fuzz_sagemaker
tests_fuzz_fuzz_sagemaker_SOURCES = tests/fuzz/sagemaker.c plugins/sagemaker/hosts.c \
	plugins/sagemaker/build.c $(fuzz_call)
tests_fuzz_fuzz_sagemaker_CPPFLAGS = $(fuzz_cppflags) -I$(top_srcdir) \
	-I$(top_srcdir)/plugins/sagemaker $(CJSON_CFLAGS)
tests_fuzz_fuzz_sagemaker_LDADD = lib/libjson.la $(fuzz_hpc_ldadd) $(CJSON_LIBS)
endif

# The platforms' environments (plugins/platforms), with their host files
# and CLUSTER_SPEC.
if BUILD_PLATFORMS
check_LTLIBRARIES += tests/fuzz/libfuzz_platforms.la
tests_fuzz_libfuzz_platforms_la_SOURCES = $(plugins_platforms_platforms_la_SOURCES)
tests_fuzz_libfuzz_platforms_la_CPPFLAGS = $(plugins_platforms_platforms_la_CPPFLAGS)
tests_fuzz_libfuzz_platforms_la_LIBADD = $(plugins_platforms_platforms_la_LIBADD)
fuzz_programs += tests/fuzz/fuzz_platforms
tests_fuzz_fuzz_platforms_SOURCES = tests/fuzz/platforms.c tests/fuzz/files.c $(fuzz_call)
tests_fuzz_fuzz_platforms_CPPFLAGS = $(fuzz_cppflags) -I$(top_srcdir) \
	-I$(top_srcdir)/plugins/platforms $(CJSON_CFLAGS)
tests_fuzz_fuzz_platforms_LDADD = $(FUZZ_DRIVER) tests/fuzz/libfuzz_platforms.la $(fuzz_call_ldadd)
endif

# The metrics page's HTTP request parser (lib/http_request.c).
fuzz_programs += tests/fuzz/fuzz_http_request
tests_fuzz_fuzz_http_request_SOURCES = tests/fuzz/http_request.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_http_request_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/fuzz
tests_fuzz_fuzz_http_request_LDADD = $(FUZZ_DRIVER) lib/libutil.la

check_PROGRAMS += $(fuzz_programs)
TESTS += $(fuzz_programs)

# For run.sh: the targets this configuration builds.
fuzz-build: $(fuzz_programs)
fuzz-list:
	@echo $(fuzz_programs)
.PHONY: fuzz-build fuzz-list

EXTRA_DIST += tests/fuzz/run.sh tests/fuzz/lsan.supp tests/fuzz/corpus tests/fuzz/gen-corpus.py \
	docs/fuzzing.md

# Fuzz every target (clang + libFuzzer; skipped without them).  Never by
# `make check`: CI runs it on its own.
fuzz:
	$(SHELL) $(srcdir)/tests/fuzz/run.sh '$(abs_top_srcdir)'
.PHONY: fuzz
