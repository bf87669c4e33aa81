/* A small aligned text table for the program's listings: fitted to a
 * width, coloured on request. */
#ifndef MUSTER_CLI_TABLE_H
#define MUSTER_CLI_TABLE_H

#include <stddef.h>
#include <stdio.h>

struct table;

/* A table of `columns` columns; NULL when out of memory. */
struct table *table_new(size_t columns);
/* Append a row of `columns` cells (copied; NULL prints as "-").
 * 0, or -1 when out of memory. */
int table_add(struct table *t, const char *const *cells);
/* ... each cell with an SGR style ("1", "32", "1;33"; NULL: none), used
 * when the table is printed in colour.  `styles` (NULL: none) must
 * outlive the table: string constants. */
int table_add_styled(struct table *t, const char *const *cells, const char *const *styles);
/* The width of a printed row: the columns shown, two spaces between. */
size_t table_width(const struct table *t);
/* Cuts the cells of `column` ending in "..." so that rows fit `width`
 * (0: any), leaving the column at least `min` wide (4 at the least): 0
 * when the rows fit now, -1 when they do not (the column as cut as it
 * may be). */
int table_fit(struct table *t, size_t width, size_t column, size_t min);
/* Leaves `column` out when printing. */
void table_hide(struct table *t, size_t column);
/* Print where out_* writes (stdout, or a captured frame): columns
 * separated by two spaces, each padded to its widest cell, the last one
 * not padded; styles as SGR escapes when `color`. */
void table_print(const struct table *t);
void table_print_color(const struct table *t, int color);
/* ... on `f`. */
void table_fprint(const struct table *t, FILE *f);
void table_free(struct table *t);

#endif /* MUSTER_CLI_TABLE_H */
