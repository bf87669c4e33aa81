/* A small aligned text table for the program's listings. */
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
/* Print through out_printf: columns separated by two spaces, each padded
 * to its widest cell, the last one not padded. */
void table_print(const struct table *t);
/* ... on `f`. */
void table_fprint(const struct table *t, FILE *f);
void table_free(struct table *t);

#endif /* MUSTER_CLI_TABLE_H */
