/* muster doctor's report: rows collected by each group of checks, printed
 * as one table or one JSON object. */
#include <config.h>

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"
#include "table.h"

static const char *const level_name[] = { "ok", "note", "problem" };

/* A copy fit for a terminal line: control bytes (a variable's value may
 * hold any) become '?'. */
static char *clean_copy(const char *s)
{
	char *c = s ? strdup(s) : NULL;
	for (char *p = c; p && *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return c;
}

void doctor_add(struct doctor_rows *r, enum doctor_level level, const char *check,
                const char *subject, const char *fix, const char *fmt, ...)
{
	char detail[1024];
	va_list ap;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		struct doctor_row *p = realloc(r->row, cap * sizeof(*p));
		if (p == NULL) {
			r->oom = 1;
			return;
		}
		r->row = p;
		r->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	struct doctor_row *row = &r->row[r->n];
	row->level = level;
	row->check = check;
	row->subject = clean_copy(subject);
	row->detail = clean_copy(detail);
	row->fix = clean_copy(fix);
	if (row->subject == NULL || row->detail == NULL || (fix != NULL && row->fix == NULL)) {
		free(row->subject);
		free(row->detail);
		free(row->fix);
		r->oom = 1;
		return;
	}
	r->n++;
}

void doctor_rows_free(struct doctor_rows *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->row[i].subject);
		free(r->row[i].detail);
		free(r->row[i].fix);
	}
	free(r->row);
	r->row = NULL;
	r->n = r->cap = 0;
}

enum doctor_level doctor_worst(const struct doctor_rows *groups, size_t ngroups)
{
	enum doctor_level worst = DOCTOR_OK;
	for (size_t g = 0; g < ngroups; g++) {
		if (groups[g].oom)
			return DOCTOR_PROBLEM;
		for (size_t i = 0; i < groups[g].n; i++)
			if (groups[g].row[i].level > worst)
				worst = groups[g].row[i].level;
	}
	return worst;
}

static void print_json(FILE *f, const struct doctor_rows *groups, size_t ngroups)
{
	const char *sep = "";

	fprintf(f, "{\"ok\":%s,\"checks\":[",
	        doctor_worst(groups, ngroups) == DOCTOR_PROBLEM ? "false" : "true");
	for (size_t g = 0; g < ngroups; g++) {
		for (size_t i = 0; i < groups[g].n; i++) {
			const struct doctor_row *row = &groups[g].row[i];
			fprintf(f, "%s{\"check\":\"%s\",\"status\":\"%s\",\"subject\":", sep, row->check,
			        level_name[row->level]);
			cli_put_json(f, row->subject);
			fputs(",\"detail\":", f);
			cli_put_json(f, row->detail);
			if (row->fix != NULL) {
				fputs(",\"fix\":", f);
				cli_put_json(f, row->fix);
			}
			fputc('}', f);
			sep = ",";
		}
	}
	fputs("]}\n", f);
}

/* STATUS CHECK SUBJECT DETAIL, a problem's fix after its detail. */
static int print_table(FILE *f, const struct doctor_rows *groups, size_t ngroups)
{
	static const char *const header[] = { "STATUS", "CHECK", "SUBJECT", "DETAIL" };
	struct table *t = table_new(4);
	int rc = t == NULL || table_add(t, header) != 0 ? -1 : 0;

	for (size_t g = 0; g < ngroups && rc == 0; g++) {
		for (size_t i = 0; i < groups[g].n && rc == 0; i++) {
			const struct doctor_row *row = &groups[g].row[i];
			size_t len = strlen(row->detail) + (row->fix ? strlen(row->fix) + 8 : 0) + 1;
			char *detail = malloc(len);
			if (detail == NULL) {
				rc = -1;
				break;
			}
			snprintf(detail, len, "%s%s%s", row->detail, row->fix ? "; fix: " : "",
			         row->fix ? row->fix : "");
			const char *cells[] = { level_name[row->level], row->check, row->subject, detail };
			rc = table_add(t, cells);
			free(detail);
		}
	}
	if (rc == 0)
		table_fprint(t, f);
	table_free(t);
	return rc;
}

void doctor_print(FILE *f, const struct doctor_rows *groups, size_t ngroups, int json)
{
	int oom = 0;
	for (size_t g = 0; g < ngroups; g++)
		oom |= groups[g].oom;
	if (json)
		print_json(f, groups, ngroups);
	else if (print_table(f, groups, ngroups) != 0)
		oom = 1;
	if (oom)
		cli_error("doctor: %s: the report is incomplete", muster_strerror(MUSTER_ENOMEM));
}
