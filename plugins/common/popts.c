/* Keys that one mode of a plugin does not take, groups of named members
 * (popts.h). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "popts.h"

int popt_refuse(const muster_popts *o, const char *const *keys, const char *why)
{
	for (size_t i = 0; keys[i] != NULL; i++) {
		const muster_cfg *at = o->host->cfg_get(o->group, keys[i]);

		if (at != NULL)
			return popt_fail(o, at, "%s does not apply to %s", keys[i], why);
	}
	return 0;
}

int popt_members(const muster_popts *o, const muster_cfg *node, const struct popt_members *m,
                 void *array, size_t *count)
{
	const char *key = o->host->cfg_name(node);
	char *entries;
	size_t n;

	if (muster_popt_group(o, node, m->shape, &n) < 0)
		return -1;
	if (n < m->min)
		return popt_fail(o, node, "%s must name at least one %s", key, m->noun);
	if (m->max > 0 && n > m->max)
		return popt_fail(o, node, "%s: at most %zu %ss", key, m->max, m->noun);
	if (n == 0)
		return 0;
	if ((entries = calloc(n, m->size)) == NULL)
		return muster_popt_nomem(o, node);
	memcpy(array, &entries, sizeof(entries)); /* the caller's struct pointer */
	for (size_t i = 0; i < n; i++) {
		const muster_cfg *el = o->host->cfg_at(node, i);
		char *entry = entries + i * m->size, what[160];

		*count = i + 1;
		if ((*(char **)entry = strdup(o->host->cfg_name(el))) == NULL)
			return muster_popt_nomem(o, el);
		snprintf(what, sizeof(what), "%s.%s", key, *(char **)entry);
		if (m->read(o, el, what, entry) < 0)
			return -1;
	}
	return 0;
}

void popt_strings_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
