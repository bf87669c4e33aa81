/* Prometheus' text exposition format 0.0.4 (the exposition formats
 * document): one line per sample, `name{labels} value`, a family's HELP
 * and TYPE lines before its samples, label values with backslash, double
 * quote and line feed escaped, HELP text with backslash and line feed. */
#include <config.h>

#include "prom.h"

#include <math.h>
#include <stdlib.h>

static void escaped(FILE *f, const char *s, int quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (quote && *s == '"')
			fputs("\\\"", f);
		else
			fputc(*s, f);
	}
}

void prom_family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s ", name);
	escaped(f, help, 0);
	fprintf(f, "\n# TYPE %s %s\n", name, type);
}

/* As Go's strconv.FormatFloat(v, 'g', -1, 64), which Prometheus uses:
 * the shortest form that reads back exactly; integers as integers,
 * infinities as Prometheus writes them. */
/* The shortest %g that reads back as `v` ("0.0005", not
 * "0.00050000000000000001"). */
static const char *shortest(double v, char *buf, size_t size)
{
	for (int digits = 1; digits < 17; digits++) {
		snprintf(buf, size, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			return buf;
	}
	snprintf(buf, size, "%.17g", v);
	return buf;
}

static void number(FILE *f, double v)
{
	char buf[32];

	if (isinf(v))
		fputs(v > 0 ? "+Inf" : "-Inf", f);
	else if (isnan(v))
		fputs("NaN", f);
	else if (v > -1e15 && v < 1e15 && v == (double)(long long)v)
		fprintf(f, "%lld", (long long)v);
	else
		fputs(shortest(v, buf, sizeof(buf)), f);
}

void prom_sample(FILE *f, const char *name, const char *label, const char *value, double v)
{
	fputs(name, f);
	if (label) {
		fprintf(f, "{%s=\"", label);
		escaped(f, value, 1);
		fputs("\"}", f);
	}
	fputc(' ', f);
	number(f, v);
	fputc('\n', f);
}

void prom_counter(FILE *f, const char *name, const char *help, unsigned long long v)
{
	prom_family(f, name, "counter", help);
	fprintf(f, "%s %llu\n", name, v);
}

void prom_gauge(FILE *f, const char *name, const char *help, double v)
{
	prom_family(f, name, "gauge", help);
	prom_sample(f, name, NULL, NULL, v);
}

void prom_histogram(FILE *f, const char *name, const char *help, const double *le, size_t n,
                    const unsigned long long *counts, double sum)
{
	unsigned long long total = 0;
	prom_family(f, name, "histogram", help);
	for (size_t i = 0; i <= n; i++) {
		total += counts[i];
		fprintf(f, "%s_bucket{le=\"", name);
		number(f, i < n ? le[i] : INFINITY);
		fprintf(f, "\"} %llu\n", total);
	}
	fprintf(f, "%s_sum ", name);
	number(f, sum);
	fprintf(f, "\n%s_count %llu\n", name, total);
}
