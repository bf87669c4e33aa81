/* A small aligned text table for the program's listings. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "table.h"

struct table {
	size_t columns, rows, cap;
	char **cells; /* rows * columns */
	size_t *width;
};

struct table *table_new(size_t columns)
{
	struct table *t = calloc(1, sizeof *t);

	if (t == NULL)
		return NULL;
	t->columns = columns;
	t->width = calloc(columns, sizeof *t->width);
	if (t->width == NULL) {
		free(t);
		return NULL;
	}
	return t;
}

static char *copy_string(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);

	if (p != NULL)
		memcpy(p, s, n);
	return p;
}

int table_add(struct table *t, const char *const *cells)
{
	size_t i, base;

	if (t->rows == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 8;
		char **p = realloc(t->cells, cap * t->columns * sizeof *p);

		if (p == NULL)
			return -1;
		t->cells = p;
		t->cap = cap;
	}
	base = t->rows * t->columns;
	for (i = 0; i < t->columns; i++) {
		const char *s = cells[i] != NULL ? cells[i] : "-";
		size_t n = strlen(s);

		t->cells[base + i] = copy_string(s);
		if (t->cells[base + i] == NULL) {
			while (i-- > 0)
				free(t->cells[base + i]);
			return -1;
		}
		if (n > t->width[i])
			t->width[i] = n;
	}
	t->rows++;
	return 0;
}

void table_print(const struct table *t)
{
	table_fprint(t, stdout);
}

void table_fprint(const struct table *t, FILE *f)
{
	size_t r, i;

	for (r = 0; r < t->rows; r++) {
		for (i = 0; i < t->columns; i++) {
			const char *s = t->cells[r * t->columns + i];

			if (i + 1 < t->columns)
				fprintf(f, "%-*s  ", (int)t->width[i], s);
			else
				fprintf(f, "%s\n", s);
		}
	}
}

void table_free(struct table *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->rows * t->columns; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->width);
	free(t);
}
