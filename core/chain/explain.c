/* The explain record and its public accessors.  Values pass through two
 * redactions before they are kept: a secret-looking name hides the whole
 * value, and a URL's user information ("https://user:pw@host") is hidden
 * whatever the name, since a proxy or endpoint variable can carry a
 * password in a name that looks harmless. */
#include <config.h>

#include "explain.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/error.h"

#define REDACTED "(redacted)"

/* Whether the value of variable or file `name` must not be shown. */
static int secret_name(const char *name)
{
	static const char *const words[] = { "TOKEN", "KEY",  "SECRET",     "PASSWORD",
	                                     "PASSWD", "AUTH", "CREDENTIAL" };
	for (const char *p = name; *p; p++)
		for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (strncasecmp(p, words[i], strlen(words[i])) == 0)
				return 1;
	return 0;
}

/* A copy of at most `max` bytes of `s`, cut ones ending in "..."; NULL
 * when out of memory. */
static char *bounded_copy(const char *s, size_t max)
{
	size_t n = strnlen(s, max + 1);
	if (n <= max)
		return strdup(s);
	char *copy = malloc(max + 1);
	if (copy) {
		memcpy(copy, s, max - 3);
		memcpy(copy + max - 3, "...", 4);
	}
	return copy;
}

/* `value` as it may be shown: user information of a URL replaced. */
static char *shown_value(const char *name, const char *value)
{
	if (secret_name(name))
		return strdup(REDACTED);
	char *v = bounded_copy(value, EXPLAIN_VALUE_MAX);
	char *scheme = v ? strstr(v, "://") : NULL;
	if (!scheme)
		return v;
	char *user = scheme + 3, *end = user + strcspn(user, "/?#"), *at = NULL;
	for (char *p = user; p < end; p++)
		if (*p == '@')
			at = p; /* the last '@' before the path ends the user information */
	if (!at)
		return v;
	size_t tail = strlen(at);
	char *out = malloc((size_t)(user - v) + strlen(REDACTED) + tail + 1);
	if (out) {
		memcpy(out, v, (size_t)(user - v));
		strcpy(out + (user - v), REDACTED);
		strcat(out, at);
	}
	free(v);
	return out;
}

struct explain_notes *explain_add(struct muster_explain *x, const char *instance,
                                  const char *plugin)
{
	if (x->count == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 8;
		struct explain_notes *e = realloc(x->entries, cap * sizeof(*e));
		if (!e)
			return NULL;
		x->entries = e;
		x->cap = cap;
	}
	struct explain_notes *n = &x->entries[x->count];
	memset(n, 0, sizeof(*n));
	n->instance = strdup(instance);
	n->plugin = strdup(plugin);
	if (!n->instance || !n->plugin) {
		free(n->instance);
		free(n->plugin);
		return NULL;
	}
	x->count++;
	return n;
}

void explain_note(struct explain_notes *n, const char *name, const char *value)
{
	char *v = NULL;
	if (value && !(v = shown_value(name, value))) {
		n->dropped++;
		return;
	}
	for (size_t i = 0; i < n->ninputs; i++)
		if (strncmp(n->inputs[i].name, name, EXPLAIN_NAME_MAX) == 0) {
			free(n->inputs[i].value);
			n->inputs[i].value = v;
			return;
		}
	if (!n->inputs && !(n->inputs = malloc(EXPLAIN_INPUTS_MAX * sizeof(*n->inputs)))) {
		free(v);
		n->dropped++;
		return;
	}
	char *copy = n->ninputs < EXPLAIN_INPUTS_MAX ? bounded_copy(name, EXPLAIN_NAME_MAX) : NULL;
	if (!copy) {
		free(v);
		n->dropped++;
		return;
	}
	n->inputs[n->ninputs++] = (struct explain_input){ copy, v };
}

void explain_answer(struct explain_notes *n, int code, const char *reason, long ms)
{
	n->code = code;
	n->ms = ms;
	free(n->reason);
	n->reason = reason ? strdup(reason) : NULL;
}

void explain_partial(struct explain_notes *n, struct muster_result *partial)
{
	muster_result_free(n->partial);
	n->partial = partial;
}

MUSTER_API void muster_explain_free(muster_explain *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->count; i++) {
		struct explain_notes *n = &x->entries[i];
		for (size_t j = 0; j < n->ninputs; j++) {
			free(n->inputs[j].name);
			free(n->inputs[j].value);
		}
		free(n->inputs);
		free(n->instance);
		free(n->plugin);
		free(n->reason);
		muster_result_free(n->partial);
	}
	free(x->entries);
	free(x);
}

MUSTER_API size_t muster_explain_entry_count(const muster_explain *x)
{
	return x ? x->count : 0;
}

MUSTER_API int muster_explain_entry_at(const muster_explain *x, size_t i,
                                       muster_explain_entry *out)
{
	if (!x || !out || out->size < offsetof(muster_explain_entry, dropped) + sizeof(out->dropped))
		return MUSTER_EINVAL;
	if (i >= x->count)
		return MUSTER_ENOENT;
	const struct explain_notes *n = &x->entries[i];
	out->instance = n->instance;
	out->plugin = n->plugin;
	out->code = n->code;
	out->reason = n->reason;
	out->ms = n->ms;
	out->used = n->used;
	out->inputs = n->ninputs;
	out->dropped = n->dropped;
	if (out->size >= offsetof(muster_explain_entry, after) + sizeof(out->after))
		out->after = n->after;
	return 0;
}

MUSTER_API int muster_explain_input_at(const muster_explain *x, size_t i, size_t j,
                                       const char **name, const char **value)
{
	if (!x)
		return MUSTER_EINVAL;
	if (i >= x->count || j >= x->entries[i].ninputs)
		return MUSTER_ENOENT;
	if (name)
		*name = x->entries[i].inputs[j].name;
	if (value)
		*value = x->entries[i].inputs[j].value;
	return 0;
}

MUSTER_API const muster_result *muster_explain_partial(const muster_explain *x, size_t i)
{
	return x && i < x->count ? x->entries[i].partial : NULL;
}
