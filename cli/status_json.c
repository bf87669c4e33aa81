/* muster status --format json: the frame as one line of JSON, for
 * scripts.  Every string goes through cli_put_json(). */
#include <config.h>

#include <stdio.h>

#include "cli.h"
#include "lib/address.h"
#include "status.h"

static void json_string(const char *s)
{
	cli_put_json(out_file(), s);
}

static void key(const char *k, int first)
{
	out_printf("%s\"%s\":", first ? "" : ",", k);
}

static void string_or_null(const char *s)
{
	if (s)
		json_string(s);
	else
		out_puts("null");
}

static void accels(const muster_result *r, const char *job, long index)
{
	const char *kind;
	long count;
	out_puts("{");
	for (size_t k = 0; muster_result_accelerator_at(r, job, index, k, &kind, &count) == 0; k++) {
		out_puts(k ? "," : "");
		json_string(kind);
		out_printf(":%ld", count);
	}
	out_puts("}");
}

static void node(const struct status_view *v, const struct status_node *n)
{
	out_puts("{");
	key("host", 1);
	json_string(n->host);
	key("self", 0);
	out_puts(n->self ? "true" : "false");
	key("address_known", 0);
	out_puts(address_is_placeholder(n->host) ? "false" : "true");
	key("accelerators", 0);
	out_puts("{");
	for (size_t i = 0; i < n->naccels; i++) {
		out_puts(i ? "," : "");
		json_string(n->accels[i].kind);
		out_printf(":%ld", n->accels[i].count);
	}
	out_puts("}");
	key("tasks", 0);
	out_puts("[");
	for (size_t i = 0; i < n->ntasks; i++) {
		const struct status_task *t = &n->tasks[i];
		out_puts(i ? ",{" : "{");
		key("job", 1);
		json_string(t->job);
		key("index", 0);
		out_printf("%ld", t->index);
		key("address", 0);
		json_string(t->address);
		key("port", 0);
		if (t->port >= 0)
			out_printf("%ld", t->port);
		else
			out_puts("null");
		key("self", 0);
		out_puts(t->self ? "true" : "false");
		key("accelerators", 0);
		accels(v->res, t->job, t->index);
		out_puts("}");
	}
	out_puts("]}");
}

static void pending(const muster_result *r)
{
	const char *job, *name, *why;
	long index;
	out_puts("[");
	for (size_t i = 0; muster_result_pending_at(r, i, &job, &index, &name, &why) == 0; i++) {
		out_puts(i ? ",{" : "{");
		key("job", 1);
		json_string(job);
		key("index", 0);
		if (index >= 0)
			out_printf("%ld", index);
		else
			out_puts("null");
		key("name", 0);
		string_or_null(name);
		key("reason", 0);
		string_or_null(why);
		out_puts("}");
	}
	out_puts("]");
}

static void entries(const muster_explain *x)
{
	out_puts("[");
	for (size_t i = 0; i < muster_explain_entry_count(x); i++) {
		muster_explain_entry e = MUSTER_EXPLAIN_ENTRY_INIT;
		muster_explain_entry_at(x, i, &e);
		out_puts(i ? ",{" : "{");
		key("instance", 1);
		json_string(e.instance);
		key("plugin", 0);
		json_string(e.plugin);
		key("answer", 0);
		json_string(status_word(e.code));
		key("reason", 0);
		string_or_null(e.reason);
		key("ms", 0);
		out_printf("%ld", e.ms);
		key("used", 0);
		out_puts(e.used ? "true" : "false");
		key("after", 0);
		out_puts(e.after ? "true" : "false");
		out_puts("}");
	}
	out_puts("]");
}

int status_print_json(const struct status_view *v)
{
	const muster_result *r = v->res;
	const char *type = muster_result_task_type(r);

	out_puts("{");
	key("status", 1);
	json_string(status_word(v->code));
	key("message", 0);
	string_or_null(v->code ? v->message : NULL);
	key("source", 0);
	string_or_null(muster_result_source(r));
	key("self", 0);
	if (type) {
		out_puts("{");
		key("job", 1);
		json_string(type);
		key("index", 0);
		out_printf("%ld", muster_result_task_index(r));
		out_puts("}");
	} else {
		out_puts("null");
	}
	key("nodes", 0);
	out_puts("[");
	for (size_t i = 0; i < v->nnodes; i++) {
		out_puts(i ? "," : "");
		node(v, &v->nodes[i]);
	}
	out_puts("]");
	key("pending", 0);
	pending(r);
	key("pending_dropped", 0);
	out_printf("%zu", muster_result_pending_dropped(r));
	key("entries", 0);
	if (v->x)
		entries(v->x);
	else
		out_puts("null");
	out_puts("}\n");
	return 0;
}
