#include <config.h>

#include "builtin.h"

const struct loaded_plugin builtin_plugins[] = {
	{ .desc = &static_plugin, .file = NULL },
};

const size_t builtin_count = sizeof(builtin_plugins) / sizeof(builtin_plugins[0]);
