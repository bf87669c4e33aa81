/*
 * tf_config backend: internal interfaces between its files.
 *
 *   tf_config.c  descriptor, open() (config options), resolve(), close()
 *   input.c      reads the JSON text: environment variable or file, size cap
 *   json.c       parses it with the strict JSON reader every backend shares
 *                (lib/strict_json.h: Python's syntax and its
 *                last duplicate key, a fast tree), and Python's int()
 *   build.c      turns the parsed TF_CONFIG into builder calls
 *
 * Nothing here is exported: the plugin's only visible symbol is its entry.
 */
#ifndef MUSTER_PLUGINS_TF_CONFIG_H
#define MUSTER_PLUGINS_TF_CONFIG_H

#include <stddef.h>

#include <muster/plugin.h>

#include "lib/strict_json.h"
#include "plugins/common/answer.h"

/* The largest TF_CONFIG accepted, in bytes. */
#define TFC_MAX_INPUT ((size_t)16 * 1024 * 1024)

/* Task indices are int32 in TensorFlow's ClusterDef (map<int32, string>). */
#define TFC_MAX_INDEX 2147483647L

/* What open() keeps: the entry's options, copied. */
struct tfc_conf {
	muster_plugin_ctx *pc;
	char *variable;    /* environment variable; NULL when `file` is used */
	char *file;        /* JSON file read instead of the environment */
	char *task_type;   /* TFConfigClusterResolver's overrides; NULL: not given */
	long task_id;      /* -1: not given */
	char *rpc_layer;   /* "" is an override too: no prefix */
	char *environment;
};

/* One resolve(): where reasons go and how to name the input in them. */
struct tfc_run {
	const muster_host *host;
	muster_call *call;
	const struct tfc_conf *conf;
	const char *src; /* the variable's name or the file's path */
};

/* input.c: the text to parse, NUL-terminated, owned by the caller. */
muster_status tfc_read_input(const struct tfc_run *run, char **text, size_t *len);

/* json.c */
/* Parse `text` (len bytes, text[len] == '\0') into an object; free the
 * document with sjson_free(). */
muster_status tfc_parse(const struct tfc_run *run, const char *text, size_t len,
                        struct sjson_doc *doc);

/* Python's int() of a string, limited to task indices. */
enum tfc_int_result {
	TFC_INT_OK = 0,
	TFC_INT_INVALID = 1,  /* not an integer literal */
	TFC_INT_NEGATIVE = 2, /* an integer below zero */
	TFC_INT_RANGE = 3     /* above TFC_MAX_INDEX */
};
enum tfc_int_result tfc_parse_int(const char *s, long *out);
/* The same for a JSON number: integral, in 0..TFC_MAX_INDEX. */
enum tfc_int_result tfc_number_index(double d, long *out);

/* build.c */
muster_status tfc_build(const struct tfc_run *run, const cJSON *root);

#endif /* MUSTER_PLUGINS_TF_CONFIG_H */
