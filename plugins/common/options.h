/* Typed option getters shared by the bundled plugins' open(): each reads
 * one key of the entry's config group through the host services and, on a
 * wrong type or value, records the reason with the key's file:line. */
#ifndef MUSTER_PLUGIN_COMMON_OPTIONS_H
#define MUSTER_PLUGIN_COMMON_OPTIONS_H

#include <muster/plugin.h>

struct popts {
	const muster_host *host;
	muster_plugin_ctx *pc;
	const muster_cfg *root;
};

/* "a string", "an integer", ... for messages. */
const char *popt_kind(const muster_host *host, const muster_cfg *node);
/* Records "out of memory" at `at`; returns -1. */
int popt_nomem(const struct popts *o, const muster_cfg *at);
/* A string node's value; -1 after open_error when not a (non-empty) string. */
int popt_node_string(const struct popts *o, const muster_cfg *node, const char *what,
                     int allow_empty, const char **out);

/* Optional options: 0 absent, 1 read into *out, -1 after open_error. */
int popt_string(const struct popts *o, const char *key, int allow_empty, char **out);
int popt_bool(const struct popts *o, const char *key, int *out);
int popt_int(const struct popts *o, const char *key, long min, long max, long *out);
/* A string, or a non-empty array/list of strings, into a fresh vector of
 * copies (*n of them); -1 after open_error.  The caller frees what is set
 * in *out also on failure. */
int popt_string_list(const struct popts *o, const muster_cfg *node, const char *what,
                     char ***out, size_t *n);
/* One of `names` (NULL-terminated): its position in *out. */
int popt_choice(const struct popts *o, const char *key, const char *const *names, int *out);

#endif
