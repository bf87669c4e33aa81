/* Prometheus' text exposition format, version 0.0.4: a metric family's
 * # HELP and # TYPE lines, its samples, label values escaped.  The pages
 * of `muster reserve --metrics-port` and `muster watch --metrics-port`. */
#ifndef MUSTER_LIB_PROM_H
#define MUSTER_LIB_PROM_H

#include <stddef.h>
#include <stdio.h>

#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* "# HELP name help" and "# TYPE name type" ("counter", "gauge",
 * "histogram"). */
void prom_family(FILE *f, const char *name, const char *type, const char *help);
/* A sample: `name{label="value"} v`, without braces when `label` is NULL. */
void prom_sample(FILE *f, const char *name, const char *label, const char *value, double v);
/* A family of one sample without labels. */
void prom_counter(FILE *f, const char *name, const char *help, unsigned long long v);
void prom_gauge(FILE *f, const char *name, const char *help, double v);
/* A histogram of `n` upper bounds `le` (increasing; +Inf is added):
 * `counts` holds n + 1 per-bucket counts (the last past every bound),
 * made cumulative here; `_count` is their total. */
void prom_histogram(FILE *f, const char *name, const char *help, const double *le, size_t n,
                    const unsigned long long *counts, double sum);

#endif
