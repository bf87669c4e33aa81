# plugins/sagemaker: SM_HOSTS / SM_CURRENT_HOST and resourceconfig.json
# (TensorFlow's SageMakerClusterResolver), with the strict JSON reader.
if BUILD_SAGEMAKER
plugins_LTLIBRARIES += plugins/sagemaker/sagemaker.la
plugins_sagemaker_sagemaker_la_SOURCES = plugins/sagemaker/sagemaker.c \
	plugins/sagemaker/sagemaker.h plugins/sagemaker/options.c plugins/sagemaker/hosts.c \
	plugins/sagemaker/build.c
plugins_sagemaker_sagemaker_la_CPPFLAGS = $(muster_json_plugin_cppflags)
plugins_sagemaker_sagemaker_la_LDFLAGS = $(muster_plugin_ldflags)
plugins_sagemaker_sagemaker_la_LIBADD = $(muster_json_plugin_libadd)
endif
