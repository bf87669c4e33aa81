/* muster status as a table: a title, this process's task, a row per node
 * and one per member not ready; for a chain that found no cluster, what
 * each entry answered.  Text from backends is escaped, every line fitted
 * to the width. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lib/address.h"
#include "status.h"
#include "table.h"

/* SGR styles. */
#define BOLD "1"
#define GOOD "32"
#define WAIT "33"
#define BAD "31"
#define SELF "1;36"

/* A string built through a FILE (open_memstream): escaped text and
 * numbers, without counting bytes by hand. */
struct text {
	char *s;
	size_t len;
	FILE *f;
};

static int text_open(struct text *t)
{
	t->s = NULL;
	t->f = open_memstream(&t->s, &t->len);
	return t->f ? 0 : -1;
}

/* The string (the caller's to free), or NULL when out of memory. */
static char *text_close(struct text *t)
{
	if (!t->f || fclose(t->f) != 0) {
		free(t->s);
		return NULL;
	}
	return t->s;
}

/* `s` for a terminal: control bytes and broken UTF-8 as \xHH. */
static void put(struct text *t, const char *s)
{
	cli_put_escaped(t->f, s, 0);
}

/* One line, cut to `width` with "..." (0: any), in `style` when colouring. */
static void line(const char *s, size_t width, const char *style, int color)
{
	size_t n = strlen(s);
	int cut = width > 3 && n > width;
	if (color && style)
		out_printf("\033[%sm", style);
	out_printf("%.*s%s", (int)(cut ? width - 3 : n), s, cut ? "..." : "");
	out_puts(color && style ? "\033[0m\n" : "\n");
}

/* A node's tasks as runs, "worker:0-3, ps:0", and their ports the same
 * way, "29500-29503, 2222": a run is consecutive indices of one job at
 * consecutive ports, what a scheduler places on a host. */
static int task_cells(const struct status_node *n, char **tasks, char **ports)
{
	struct text t, p;
	if (text_open(&t) < 0)
		return -1;
	if (text_open(&p) < 0) {
		free(text_close(&t));
		return -1;
	}
	for (size_t i = 0, j; i < n->ntasks; i = j) {
		const struct status_task *a = &n->tasks[i];
		for (j = i + 1; j < n->ntasks; j++) {
			const struct status_task *prev = &n->tasks[j - 1], *b = &n->tasks[j];
			if (strcmp(b->job, a->job) != 0 || b->index != prev->index + 1 || prev->port < 0 ||
			    b->port != prev->port + 1)
				break;
		}
		const struct status_task *z = &n->tasks[j - 1];
		fputs(i ? ", " : "", t.f);
		put(&t, a->job);
		fprintf(t.f, ":%ld", a->index);
		if (j - i > 1)
			fprintf(t.f, "-%ld", z->index);
		fputs(i ? ", " : "", p.f);
		if (a->port < 0)
			fputs("?", p.f);
		else if (j - i > 1)
			fprintf(p.f, "%ld-%ld", a->port, z->port);
		else
			fprintf(p.f, "%ld", a->port);
	}
	*tasks = text_close(&t);
	*ports = text_close(&p);
	return *tasks && *ports ? 0 : -1;
}

static char *accel_cell(const struct status_node *n)
{
	struct text t;
	if (text_open(&t) < 0)
		return NULL;
	for (size_t i = 0; i < n->naccels; i++) {
		fputs(i ? " " : "", t.f);
		put(&t, n->accels[i].kind);
		fprintf(t.f, ":%ld", n->accels[i].count);
	}
	if (n->naccels == 0)
		fputs("-", t.f);
	return text_close(&t);
}

enum { C_NODE, C_TASKS, C_PORTS, C_ACCEL, C_STATE, NCOL };

static int node_row(struct table *tb, const struct status_node *n)
{
	char *host = NULL, *tasks = NULL, *ports = NULL, *accel = accel_cell(n);
	struct text t;
	if (text_open(&t) == 0) {
		/* The node of this process's own task is starred. */
		fputs(n->self ? "* " : "  ", t.f);
		put(&t, n->host);
		host = text_close(&t);
	}
	int rc = host && accel && task_cells(n, &tasks, &ports) == 0 ? 0 : -1;
	/* A member whose platform does not publish its address keeps its
	 * place under a name that never resolves (lib/address.h). */
	int unknown = address_is_placeholder(n->host);
	const char *cells[NCOL] = { host, tasks, ports, accel,
		                    unknown ? "address not published" : "ready" };
	const char *styles[NCOL] = { n->self ? SELF : NULL, NULL, NULL, NULL, unknown ? WAIT : GOOD };
	if (rc == 0)
		rc = table_add_styled(tb, cells, styles);
	free(host);
	free(tasks);
	free(ports);
	free(accel);
	return rc;
}

static int pending_row(struct table *tb, const muster_result *r, size_t i)
{
	const char *job, *name, *why;
	long index;
	char *task = NULL, *state = NULL;
	struct text t;
	muster_result_pending_at(r, i, &job, &index, &name, &why);
	if (text_open(&t) == 0) {
		put(&t, job);
		if (index >= 0)
			fprintf(t.f, ":%ld", index);
		task = text_close(&t);
	}
	if (text_open(&t) == 0) {
		/* name and why are printable ASCII (the core makes them so). */
		fprintf(t.f, "not ready%s%s", why ? ": " : "", why ? why : "");
		if (name)
			fprintf(t.f, " (%s)", name);
		state = text_close(&t);
	}
	const char *cells[NCOL] = { "  -", task, "-", "-", state };
	const char *styles[NCOL] = { NULL, NULL, NULL, NULL, WAIT };
	int rc = task && state ? table_add_styled(tb, cells, styles) : -1;
	free(task);
	free(state);
	return rc;
}

/* Fits the node table to `width`: the state, the tasks, the accelerators,
 * the node and the ports give way in turn, each down to a width still
 * worth reading; then the ports and the accelerators are left out; then
 * everything is cut to the bone. */
static void fit(struct table *tb, size_t width)
{
	static const size_t give[][2] = { { C_STATE, 16 }, { C_TASKS, 10 }, { C_ACCEL, 8 },
	                                  { C_NODE, 10 }, { C_PORTS, 8 } };
	static const size_t drop[] = { C_PORTS, C_ACCEL };
	size_t n = sizeof(give) / sizeof(give[0]);

	for (size_t i = 0; i < n; i++)
		if (table_fit(tb, width, give[i][0], give[i][1]) == 0)
			return;
	for (size_t d = 0; d < sizeof(drop) / sizeof(drop[0]); d++) {
		table_hide(tb, drop[d]);
		if (table_width(tb) <= width)
			return;
	}
	for (size_t i = 0; i < n; i++)
		if (table_fit(tb, width, give[i][0], 0) == 0)
			return;
}

/* The node table, fitted. */
static int cluster_table(const struct status_view *v, size_t width, int color)
{
	static const char *const head[NCOL] = { "  NODE", "TASKS", "PORTS", "ACCELERATORS",
	                                        "STATE" };
	static const char *const bold[NCOL] = { BOLD, BOLD, BOLD, BOLD, BOLD };
	size_t npending = muster_result_pending_count(v->res);
	struct table *tb = table_new(NCOL);
	int rc = tb ? table_add_styled(tb, head, bold) : -1;

	for (size_t i = 0; rc == 0 && i < v->nnodes; i++)
		rc = node_row(tb, &v->nodes[i]);
	for (size_t i = 0; rc == 0 && i < npending; i++)
		rc = pending_row(tb, v->res, i);
	if (rc == 0)
		fit(tb, width);
	if (rc == 0)
		table_print_color(tb, color);
	table_free(tb);
	return rc;
}

/* What each entry of the chain answered: for a chain that found nothing. */
static int entries_table(const muster_explain *x, size_t width, int color)
{
	static const char *const head[5] = { "ENTRY", "PLUGIN", "ANSWER", "MS", "REASON" };
	static const char *const bold[5] = { BOLD, BOLD, BOLD, BOLD, BOLD };
	struct table *tb = table_new(5);
	int rc = tb ? table_add_styled(tb, head, bold) : -1;

	for (size_t i = 0; rc == 0 && i < muster_explain_entry_count(x); i++) {
		muster_explain_entry e = MUSTER_EXPLAIN_ENTRY_INIT;
		char ms[24], *reason = NULL;
		struct text t;
		muster_explain_entry_at(x, i, &e);
		snprintf(ms, sizeof(ms), "%ld", e.ms);
		if (text_open(&t) == 0) {
			put(&t, e.reason ? e.reason : "");
			reason = text_close(&t);
		}
		char answer[32];
		/* Asked after the chain ended (a detector): for the record. */
		snprintf(answer, sizeof(answer), "%s%s", status_word(e.code), e.after ? " (after)" : "");
		const char *cells[5] = { e.instance, e.plugin, answer, ms, reason };
		const char *styles[5] = { NULL, NULL, e.code == MUSTER_ENOTFOUND ? NULL : BAD, NULL,
		                          NULL };
		rc = reason ? table_add_styled(tb, cells, styles) : -1;
		free(reason);
	}
	if (rc == 0) {
		table_fit(tb, width, 4, 12);
		table_print_color(tb, color);
	}
	table_free(tb);
	return rc;
}

/* The lines above the table: what answered, and which task this is. */
static int title(const struct status_view *v, size_t width, int color)
{
	const muster_result *r = v->res;
	size_t npending = muster_result_pending_count(r) + muster_result_pending_dropped(r);
	const char *type = muster_result_task_type(r);
	struct text t;
	char *s;

	if (text_open(&t) < 0)
		return -1;
	if (v->code == 0) {
		fputs("Cluster from ", t.f);
		put(&t, muster_result_source(r) ? muster_result_source(r) : "?");
	} else {
		fputs("Not ready: ", t.f);
		put(&t, v->message ? v->message : muster_strerror(v->code));
	}
	if (!(s = text_close(&t)))
		return -1;
	line(s, width, v->code == 0 ? BOLD : WAIT, color);
	free(s);
	if (text_open(&t) < 0)
		return -1;
	fprintf(t.f, "%s%zu task%s on %zu node%s", v->code == 0 ? "" : "So far: ", v->ntasks,
	        v->ntasks == 1 ? "" : "s", v->nnodes, v->nnodes == 1 ? "" : "s");
	if (npending)
		fprintf(t.f, ", %zu not ready", npending);
	fputs("; this process: ", t.f);
	if (type) {
		const char *addr = muster_result_address(r, type, muster_result_task_index(r));
		put(&t, type);
		fprintf(t.f, ":%ld", muster_result_task_index(r));
		if (addr) {
			fputs(" at ", t.f);
			put(&t, addr);
		}
	} else {
		fputs("not known", t.f);
	}
	if (!(s = text_close(&t)))
		return -1;
	line(s, width, NULL, color);
	free(s);
	out_puts("\n");
	return 0;
}

int status_print_table(const struct status_view *v, size_t width, int color)
{
	size_t dropped = muster_result_pending_dropped(v->res);
	char more[96];

	if (!v->res) {
		struct text t;
		char *s;
		if (text_open(&t) < 0)
			return -1;
		fputs("No cluster: ", t.f);
		put(&t, v->message ? v->message : muster_strerror(v->code));
		if (!(s = text_close(&t)))
			return -1;
		line(s, width, BAD, color);
		free(s);
		if (!v->x)
			return 0;
		out_puts("\n");
		return entries_table(v->x, width, color);
	}
	if (title(v, width, color) < 0 || cluster_table(v, width, color) < 0)
		return -1;
	if (dropped) {
		snprintf(more, sizeof(more), "... and %zu more not ready, not listed", dropped);
		line(more, width, WAIT, color);
	}
	return 0;
}
