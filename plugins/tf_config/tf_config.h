/*
 * tf_config backend: internal interfaces between its files.
 *
 *   tf_config.c  descriptor, open() (config options), resolve(), close()
 *   input.c      reads the JSON text: environment variable or file, size cap
 *   json.c       parses it (syntax errors with byte offset and excerpt) and
 *                the small helpers that give Python's semantics on cJSON
 *   syntax.c     checks the syntax strictly, as Python's json would
 *   tree.c       builds the cJSON tree of checked text, in a few blocks
 *   build.c      turns the parsed TF_CONFIG into builder calls
 *
 * Nothing here is exported: the plugin's only visible symbol is its entry.
 */
#ifndef MUSTER_PLUGINS_TF_CONFIG_H
#define MUSTER_PLUGINS_TF_CONFIG_H

#include <stddef.h>

#include <cJSON.h>
#include <muster/plugin.h>

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

/* A parsed document: cJSON nodes, freed with tfc_doc_free(), never with
 * cJSON_Delete(). */
struct tfc_block;
struct tfc_doc {
	cJSON *root;
	struct tfc_block *blocks; /* the nodes */
	char *strings;            /* every decoded string and key */
};

/* json.c */
/* Parse `text` (len bytes, text[len] == '\0') into an object. */
muster_status tfc_parse(const struct tfc_run *run, const char *text, size_t len,
                        struct tfc_doc *doc);
/* syntax.c: a strict RFC 8259 check of `text`.  On an error, the byte where
 * the text stops being JSON and what was expected there, as Python's json
 * module places it; TFC_SYNTAX_TOO_DEEP at the first container beyond
 * cJSON's nesting limit. */
enum tfc_syntax_result {
	TFC_SYNTAX_OK = 0,
	TFC_SYNTAX_ERROR = 1,
	TFC_SYNTAX_TOO_DEEP = 2
};
enum tfc_syntax_result tfc_syntax_error(const char *text, size_t len, size_t *at,
                                        const char **what);
/* Member `key` of an object, compared exactly; with duplicate keys the last
 * one, as Python's json module keeps. */
const cJSON *tfc_member(const cJSON *object, const char *key);
/* "a string", "a number", "an object", "an array", "a boolean", "null". */
const char *tfc_kind(const cJSON *item);

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

/* A string for a message: at most `size` - 1 bytes, quoted with escapes,
 * long strings cut with "...". */
void tfc_quote(char *buf, size_t size, const char *s, size_t len);

/* tree.c: the tree of `text`, which tfc_syntax_error() has passed: 0; -1
 * when out of memory; 1 at a lone UTF-16 surrogate escape, which cJSON
 * refuses, *at its byte.  The text may be freed afterwards. */
int tfc_tree(const char *text, size_t len, struct tfc_doc *doc, size_t *at);
void tfc_doc_free(struct tfc_doc *doc);

/* build.c */
muster_status tfc_build(const struct tfc_run *run, const cJSON *root);

#endif /* MUSTER_PLUGINS_TF_CONFIG_H */
