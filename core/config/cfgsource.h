/* Where each line of an expanded config text came from.  muster hands
 * libconfig one text, the file with its @include directives replaced by
 * the files they name (core/includes.c); this map turns a line of that
 * text back into file:line, for libconfig's parse errors and for every
 * setting's source, so messages name the file a line was written in. */
#ifndef MUSTER_CFGSOURCE_H
#define MUSTER_CFGSOURCE_H

#include <stddef.h>

#include <libconfig.h>

struct cfgsource_span {
	unsigned first;     /* the text's first line of the span, 1-based */
	size_t file;        /* index into files */
	unsigned file_line; /* that line's number in the file */
};

struct cfgsource {
	char **files; /* the paths, as messages name them; owned */
	size_t nfiles;
	struct cfgsource_span *spans; /* by first, strictly increasing */
	size_t nspans, cap;
};

/* Adds `path` (copied) to the files: its index, or -1 out of memory. */
long cfgsource_add_file(struct cfgsource *src, const char *path);

/* From the text's line `first` on, lines are `file`'s from `file_line`
 * on.  A span starting on the same line as the last one replaces it.
 * 0, or -1 out of memory. */
int cfgsource_span(struct cfgsource *src, unsigned first, size_t file, unsigned file_line);

/* The file and line of the text's line `line` (*file NULL when unknown). */
void cfgsource_locate(const struct cfgsource *src, unsigned line, const char **file,
                      unsigned *file_line);

/* Every setting of `cfg`, read from the text, gets its file and line. */
void cfgsource_apply(const struct cfgsource *src, config_t *cfg);

void cfgsource_release(struct cfgsource *src);

#endif
