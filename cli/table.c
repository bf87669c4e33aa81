/* A small aligned text table for the program's listings. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "table.h"

struct table {
	size_t columns, rows, cap;
	char **cells;         /* rows * columns */
	const char **styles;  /* rows * columns; NULL: unstyled */
	size_t *width;        /* per column, its widest cell */
	unsigned char *hidden;
};

struct table *table_new(size_t columns)
{
	struct table *t = calloc(1, sizeof *t);

	if (t == NULL)
		return NULL;
	t->columns = columns;
	t->width = calloc(columns, sizeof *t->width);
	t->hidden = calloc(columns, 1);
	if (t->width == NULL || t->hidden == NULL) {
		table_free(t);
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

int table_add_styled(struct table *t, const char *const *cells, const char *const *styles)
{
	size_t i, base;

	if (t->rows == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 8;
		char **p = realloc(t->cells, cap * t->columns * sizeof *p);

		if (p == NULL)
			return -1;
		t->cells = p;
		const char **s = realloc(t->styles, cap * t->columns * sizeof *s);
		if (s == NULL)
			return -1;
		t->styles = s;
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
		t->styles[base + i] = styles != NULL ? styles[i] : NULL;
		if (n > t->width[i])
			t->width[i] = n;
	}
	t->rows++;
	return 0;
}

int table_add(struct table *t, const char *const *cells)
{
	return table_add_styled(t, cells, NULL);
}

size_t table_width(const struct table *t)
{
	size_t w = 0, shown = 0;

	for (size_t i = 0; i < t->columns; i++)
		if (!t->hidden[i]) {
			w += t->width[i] + (shown++ ? 2 : 0);
		}
	return w;
}

int table_fit(struct table *t, size_t width, size_t column, size_t min)
{
	size_t total = table_width(t), w = t->width[column];

	if (width == 0 || total <= width || t->hidden[column])
		return 0;
	/* At least a character and the "..." of a cut cell. */
	if (min < 4)
		min = 4;
	size_t over = total - width, room = w > over + min ? w - over : min;
	if (room >= w)
		return -1;
	for (size_t r = 0; r < t->rows; r++) {
		char *s = t->cells[r * t->columns + column];
		if (strlen(s) > room)
			memcpy(s + room - 3, "...", 4);
	}
	t->width[column] = room;
	return table_width(t) <= width ? 0 : -1;
}

void table_hide(struct table *t, size_t column)
{
	t->hidden[column] = 1;
}

static void fprint_color(const struct table *t, FILE *f, int color)
{
	size_t r, i, last = 0;

	for (i = 0; i < t->columns; i++)
		if (!t->hidden[i])
			last = i;
	for (r = 0; r < t->rows; r++) {
		for (i = 0; i < t->columns; i++) {
			const char *s = t->cells[r * t->columns + i];
			const char *style = color ? t->styles[r * t->columns + i] : NULL;
			int pad = i < last ? (int)(t->width[i] - strlen(s)) + 2 : 0;

			if (t->hidden[i])
				continue;
			if (style != NULL)
				fprintf(f, "\033[%sm%s\033[0m", style, s);
			else
				fputs(s, f);
			if (i < last)
				fprintf(f, "%*s", pad, "");
			else
				fputc('\n', f);
		}
	}
}

void table_fprint(const struct table *t, FILE *f)
{
	fprint_color(t, f, 0);
}

void table_print_color(const struct table *t, int color)
{
	fprint_color(t, out_file(), color);
}

void table_print(const struct table *t)
{
	table_print_color(t, 0);
}

void table_free(struct table *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->rows * t->columns; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->styles);
	free(t->width);
	free(t->hidden);
	free(t);
}
