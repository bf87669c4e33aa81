#include <config.h>

#include "pathlist.h"

#include <stdlib.h>
#include <string.h>

int pathlist_add(struct pathlist *p, const char *dir, size_t len)
{
	if (len == 0)
		return 0;
	char **dirs = realloc(p->dirs, (p->n + 1) * sizeof(*dirs));
	if (!dirs)
		return -1;
	p->dirs = dirs;
	if (!(dirs[p->n] = strndup(dir, len)))
		return -1;
	p->n++;
	return 0;
}

int pathlist_add_split(struct pathlist *p, const char *s)
{
	while (s && *s) {
		size_t n = strcspn(s, ":");
		if (pathlist_add(p, s, n) < 0)
			return -1;
		s += n + (s[n] == ':');
	}
	return 0;
}

void pathlist_clear(struct pathlist *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->dirs[i]);
	free(p->dirs);
	p->dirs = NULL;
	p->n = 0;
}
