#include "config.h"

#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *popt_kind(const muster_host *host, const muster_cfg *node)
{
	switch (host->cfg_type(node)) {
	case MUSTER_CFG_INT: return "an integer";
	case MUSTER_CFG_FLOAT: return "a float";
	case MUSTER_CFG_STRING: return "a string";
	case MUSTER_CFG_BOOL: return "a boolean";
	case MUSTER_CFG_GROUP: return "a group";
	case MUSTER_CFG_ARRAY: return "an array";
	case MUSTER_CFG_LIST: return "a list";
	default: return "of unknown type";
	}
}

int popt_nomem(const struct popts *o, const muster_cfg *at)
{
	o->host->open_error(o->pc, at, "out of memory");
	return -1;
}

int popt_node_string(const struct popts *o, const muster_cfg *node, const char *what,
                     int allow_empty, const char **out)
{
	if (o->host->cfg_string(node, out) != 0 || *out == NULL) {
		o->host->open_error(o->pc, node, "%s must be a string, not %s", what,
		                    popt_kind(o->host, node));
		return -1;
	}
	if (!allow_empty && (*out)[0] == '\0') {
		o->host->open_error(o->pc, node, "%s must not be empty", what);
		return -1;
	}
	return 0;
}

int popt_string(const struct popts *o, const char *key, int allow_empty, char **out)
{
	const muster_cfg *node = o->host->cfg_get(o->root, key);
	const char *s;

	if (node == NULL)
		return 0;
	if (popt_node_string(o, node, key, allow_empty, &s) < 0)
		return -1;
	free(*out);
	if ((*out = strdup(s)) == NULL)
		return popt_nomem(o, node);
	return 1;
}

int popt_bool(const struct popts *o, const char *key, int *out)
{
	const muster_cfg *node = o->host->cfg_get(o->root, key);

	if (node == NULL)
		return 0;
	if (o->host->cfg_bool(node, out) != 0) {
		o->host->open_error(o->pc, node, "%s must be true or false, not %s", key,
		                    popt_kind(o->host, node));
		return -1;
	}
	return 1;
}

int popt_int(const struct popts *o, const char *key, long min, long max, long *out)
{
	const muster_cfg *node = o->host->cfg_get(o->root, key);
	long long v;

	if (node == NULL)
		return 0;
	if (o->host->cfg_int(node, &v) != 0) {
		o->host->open_error(o->pc, node, "%s must be an integer, not %s", key,
		                    popt_kind(o->host, node));
		return -1;
	}
	if (v < min || v > max) {
		o->host->open_error(o->pc, node, "%s must be between %ld and %ld, not %lld", key,
		                    min, max, v);
		return -1;
	}
	*out = (long)v;
	return 1;
}

int popt_choice(const struct popts *o, const char *key, const char *const *names, int *out)
{
	const muster_cfg *node = o->host->cfg_get(o->root, key);
	char list[160] = "";
	const char *s;
	int i;

	if (node == NULL)
		return 0;
	if (popt_node_string(o, node, key, 0, &s) < 0)
		return -1;
	for (i = 0; names[i] != NULL; i++) {
		if (strcmp(s, names[i]) == 0) {
			*out = i;
			return 1;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
		         names[i]);
	}
	o->host->open_error(o->pc, node, "%s must be one of %s, not \"%s\"", key, list, s);
	return -1;
}

int popt_string_list(const struct popts *o, const muster_cfg *node, const char *what,
                     char ***out, size_t *n)
{
	int type = o->host->cfg_type(node);
	size_t count, i;
	const char *s;

	if (type == MUSTER_CFG_STRING) {
		if (popt_node_string(o, node, what, 0, &s) < 0)
			return -1;
		if ((*out = calloc(1, sizeof(char *))) == NULL || ((*out)[0] = strdup(s)) == NULL)
			return popt_nomem(o, node);
		*n = 1;
		return 0;
	}
	if (type != MUSTER_CFG_ARRAY && type != MUSTER_CFG_LIST) {
		o->host->open_error(o->pc, node, "%s must be a list of strings, not %s", what,
		                    popt_kind(o->host, node));
		return -1;
	}
	count = o->host->cfg_count(node);
	if (count == 0) {
		o->host->open_error(o->pc, node, "%s must not be empty", what);
		return -1;
	}
	if ((*out = calloc(count, sizeof(char *))) == NULL)
		return popt_nomem(o, node);
	for (i = 0; i < count; i++) {
		const muster_cfg *el = o->host->cfg_at(node, i);

		if (popt_node_string(o, el, what, 0, &s) < 0)
			return -1;
		if (((*out)[i] = strdup(s)) == NULL)
			return popt_nomem(o, el);
		*n = i + 1;
	}
	return 0;
}
