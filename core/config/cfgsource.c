#include <config.h>

#include "cfgsource.h"

#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"

long cfgsource_add_file(struct cfgsource *src, const char *path)
{
	char **files = realloc(src->files, (src->nfiles + 1) * sizeof(*files));
	if (!files)
		return -1;
	src->files = files;
	if (!(files[src->nfiles] = strdup(path)))
		return -1;
	return (long)src->nfiles++;
}

int cfgsource_span(struct cfgsource *src, unsigned first, size_t file, unsigned file_line)
{
	if (src->nspans && src->spans[src->nspans - 1].first == first)
		src->nspans--;
	if (vec_reserve(&src->spans, &src->cap, src->nspans + 1, sizeof(*src->spans)) < 0)
		return -1;
	src->spans[src->nspans++] = (struct cfgsource_span){first, file, file_line};
	return 0;
}

void cfgsource_locate(const struct cfgsource *src, unsigned line, const char **file,
                      unsigned *file_line)
{
	size_t lo = 0, hi = src->nspans;
	/* The last span that starts at or before `line`. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (src->spans[mid].first <= line)
			lo = mid;
		else
			hi = mid;
	}
	if (!src->nspans || src->spans[lo].first > line) {
		*file = src->nfiles ? src->files[0] : NULL;
		*file_line = line;
		return;
	}
	const struct cfgsource_span *s = &src->spans[lo];
	*file = src->files[s->file];
	*file_line = s->file_line + (line - s->first);
}

/* libconfig's settings keep their source in public fields; the text has
 * no file name of its own, so each is filled from the map.  Depth is
 * bounded by libconfig's parser, which recurses as deep to free them. */
static void apply(const struct cfgsource *src, config_setting_t *node)
{
	const char *file;
	unsigned line;
	cfgsource_locate(src, node->line, &file, &line);
	node->file = file;
	node->line = line;
	for (int i = 0; i < config_setting_length(node); i++) {
		config_setting_t *child = config_setting_get_elem(node, (unsigned)i);
		if (child)
			apply(src, child);
	}
}

void cfgsource_apply(const struct cfgsource *src, config_t *cfg)
{
	config_setting_t *root = config_root_setting(cfg);
	apply(src, root);
	/* The root has no line: it is the whole of the top-level file. */
	root->file = src->nfiles ? src->files[0] : NULL;
	root->line = 0;
}

void cfgsource_release(struct cfgsource *src)
{
	for (size_t i = 0; i < src->nfiles; i++)
		free(src->files[i]);
	free(src->files);
	free(src->spans);
	memset(src, 0, sizeof(*src));
}
