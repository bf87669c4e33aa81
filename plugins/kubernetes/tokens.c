/*
 * kubernetes: the continue tokens one listing has followed.  The API
 * server never hands out a token twice in a listing, so one that comes
 * again means its listing would go round in circles.
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "k8s.h"

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 14695981039346656037u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

/* The slot of `tok` in `slot[0..cap)`, or the empty one it would take. */
static char **find(char **slot, size_t cap, const char *tok)
{
	size_t i = (size_t)fnv1a(tok) & (cap - 1);

	while (slot[i] != NULL && strcmp(slot[i], tok) != 0)
		i = (i + 1) & (cap - 1);
	return &slot[i];
}

/* Doubles the table (kept at most half full, so probes stay short). */
static int grow(struct k8s_tokens *t)
{
	size_t cap = t->cap ? 2 * t->cap : 16, i;
	char **slot = calloc(cap, sizeof(*slot));

	if (slot == NULL)
		return -1;
	for (i = 0; i < t->cap; i++)
		if (t->slot[i] != NULL)
			*find(slot, cap, t->slot[i]) = t->slot[i];
	free(t->slot);
	t->slot = slot;
	t->cap = cap;
	return 0;
}

int k8s_tokens_add(struct k8s_tokens *t, const char *tok)
{
	char **at;

	if (2 * (t->n + 1) > t->cap && grow(t) < 0)
		return -1;
	at = find(t->slot, t->cap, tok);
	if (*at != NULL)
		return 0;
	if ((*at = strdup(tok)) == NULL)
		return -1;
	t->n++;
	return 1;
}

int k8s_tokens_has(const struct k8s_tokens *t, const char *tok)
{
	return t->n > 0 && *find(t->slot, t->cap, tok) != NULL;
}

void k8s_tokens_clear(struct k8s_tokens *t)
{
	size_t i;

	for (i = 0; i < t->cap; i++)
		free(t->slot[i]);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}
