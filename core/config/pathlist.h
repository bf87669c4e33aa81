/* Lists of directories, as the plugin search path is built from the
 * config, $MUSTER_PLUGIN_PATH and the installed directory. */
#ifndef MUSTER_PATHLIST_H
#define MUSTER_PATHLIST_H

#include <stddef.h>

struct pathlist {
	char **dirs;
	size_t n;
};

/* Appends a copy of dir[0..len); an empty one is skipped.  0 or -1 (ENOMEM). */
int pathlist_add(struct pathlist *p, const char *dir, size_t len);
/* Appends each element of a colon-separated list, like $PATH. */
int pathlist_add_split(struct pathlist *p, const char *colon_separated);
void pathlist_clear(struct pathlist *p);

#endif
