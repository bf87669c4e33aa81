/*
 * The conversation with the reservation server, on one connection, as a
 * TensorFlowOnSpark executor has it:
 *
 *   QINFO            already registered under (host, executor id)?  Then
 *                    this is a retry: reuse that registration and its port.
 *                    Our executor id registered from another host is a
 *                    duplicate: a clear error now, not a broken cluster later.
 *   REG              the nine metadata fields, answered 'OK'
 *   QUERY ... True   polled with backoff (50 ms doubling to TFoS's 1 s),
 *                    each False followed by a QINFO for the progress line
 *                    "12/16 reserved"; bounded by the run's deadline
 *   QINFO            the complete list
 *
 * Anything but the expected reply type is garbage: unavail, connection
 * closed.  The deadline passing while we wait for others is tryagain, with
 * the count and the first missing executor ids.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include <openssl/rand.h>

#include "spark.h"
#include "lib/clock.h"

/* What a reply was, for messages: "the str 'ERR'", "a dict". */
static void describe(const pv *v, char *buf, size_t len)
{
	const char *s = NULL;

	switch (v->type) {
	case PV_NONE: snprintf(buf, len, "None"); return;
	case PV_BOOL: snprintf(buf, len, "%s", v->u.b ? "True" : "False"); return;
	case PV_INT: snprintf(buf, len, "the int %lld", (long long)v->u.i); return;
	case PV_FLOAT: snprintf(buf, len, "a float"); return;
	case PV_STR:
		pv_get_str(v, &s);
		snprintf(buf, len, "the str '%.40s'", s);
		return;
	case PV_BYTES: snprintf(buf, len, "bytes"); return;
	case PV_LIST: snprintf(buf, len, "a list"); return;
	case PV_TUPLE: snprintf(buf, len, "a tuple"); return;
	case PV_DICT: snprintf(buf, len, "a dict"); return;
	}
	snprintf(buf, len, "an unknown value");
}

struct session {
	struct spark_run *run;
	struct spark_conn conn;
	const char *self_host;
	size_t reserved;      /* distinct executors registered, last we heard; SIZE_MAX unknown */
	int64_t missing[SPARK_MISSING_SHOWN];
	size_t nmissing;
	pv *last;             /* the last QINFO list, for a tryagain's partial view */
};

static muster_status io_failed(struct session *s, const char *why)
{
	s->run->host->fail(s->run->call, "%s", why);
	return MUSTER_STATUS_UNAVAIL;
}

static muster_status unexpected(struct session *s, const char *what, const char *wanted,
                                const pv *reply)
{
	char got[80];

	describe(reply, got, sizeof(got));
	s->run->host->fail(s->run->call, "the server answered %s to %s, not %s: is it a "
	                                 "reservation server?", got, what, wanted);
	return MUSTER_STATUS_UNAVAIL;
}

/* QINFO: the list of registrations (caller frees). */
static muster_status qinfo(struct session *s, pv **list, enum spark_io *io_out)
{
	char why[400];
	enum spark_io io;
	muster_status st;
	pv *reply = NULL;

	io = spark_conn_call(s->run, &s->conn, "QINFO", res_request("QINFO", NULL), &reply, why,
	                     sizeof(why));
	if (io_out != NULL)
		*io_out = io;
	if (io != SPARK_IO_OK)
		return io_failed(s, why);
	if (reply->type != PV_LIST) {
		st = unexpected(s, "QINFO", "a list", reply);
		pv_free(reply);
		return st;
	}
	*list = reply;
	return MUSTER_STATUS_SUCCESS;
}

/* Another host's registration under our executor id: a duplicate. */
static muster_status check_duplicate(struct session *s, const pv *list)
{
	struct res_node n;
	size_t i;

	for (i = 0; i < pv_len(list); i++) {
		if (res_node_from_pv(pv_seq_at(list, i), &n, NULL, 0) != 0)
			continue; /* judged when the cluster is built */
		if (n.executor_id == s->run->executor_id) {
			s->run->host->fail(s->run->call,
			                   "duplicate executor id %lld: already registered by %.64s "
			                   "(this host is %.64s); give each executor its own id",
			                   (long long)n.executor_id, n.host, s->self_host);
			return MUSTER_STATUS_UNAVAIL;
		}
	}
	return MUSTER_STATUS_SUCCESS;
}

static muster_status register_self(struct session *s, struct spark_port *port)
{
	const struct spark_conf *conf = s->run->conf;
	struct res_node n;
	uint8_t authkey[16];
	const char *job = NULL;
	int64_t index = -1;
	char why[400];
	enum spark_io io;
	muster_status st;
	pv *reply = NULL, *data;

	if (res_template_role(&conf->tmpl, s->run->executor_id, &job, &index, why, sizeof(why)) != 0)
		return plugin_answer(s->run->host, s->run->call, MUSTER_STATUS_UNAVAIL,
		                     "template: %s", why);
	if (spark_port_reserve(s->run, s->conn.local_family, port, why, sizeof(why)) != 0)
		return plugin_answer(s->run->host, s->run->call, MUSTER_STATUS_UNAVAIL, "%s", why);
	/* TFoS's TFManager key.  No manager runs behind a muster client, but the
	 * driver expects the field: random, like uuid4().bytes. */
	if (RAND_bytes(authkey, sizeof(authkey)) != 1)
		return plugin_answer(s->run->host, s->run->call, MUSTER_STATUS_UNAVAIL,
		                     "the random source failed");
	memset(&n, 0, sizeof(n));
	n.executor_id = s->run->executor_id;
	n.host = s->self_host;
	n.job_name = job;
	n.task_index = index;
	n.port = port->port;
	/* addr keeps TFoS's shapes: ps and evaluator managers are remote (a
	 * (host, port) tuple), others local (a str path); port 0 and "" say no
	 * manager listens. */
	if (strcmp(job, "ps") == 0 || strcmp(job, "evaluator") == 0)
		n.addr_host = s->self_host;
	else
		n.addr_path = "";
	n.authkey = authkey;
	n.authkey_len = sizeof(authkey);
	data = res_node_to_pv(&n);
	if (data == NULL)
		return plugin_answer(s->run->host, s->run->call, MUSTER_STATUS_UNAVAIL,
		                     "out of memory");
	io = spark_conn_call(s->run, &s->conn, "REG", res_request("REG", data), &reply, why,
	                     sizeof(why));
	if (io != SPARK_IO_OK)
		return io_failed(s, why);
	st = pv_is_str(reply, "OK") ? MUSTER_STATUS_SUCCESS : unexpected(s, "REG", "'OK'", reply);
	pv_free(reply);
	if (st == MUSTER_STATUS_SUCCESS)
		SPARK_LOG(s->run, MUSTER_LOG_INFO, "registered executor %lld as %s:%lld, port %ld",
		          (long long)n.executor_id, job, (long long)index, port->port);
	return st;
}

/* Takes `list` (NULL: keeps what it has) as the last one heard. */
static void keep_last(struct session *s, pv *list)
{
	if (list == NULL || list == s->last)
		return;
	pv_free(s->last);
	s->last = list;
}

static void note_progress(struct session *s, const pv *list)
{
	int64_t size = s->run->conf->tmpl.cluster_size;
	size_t missing = res_qinfo_missing(list, size, s->missing, SPARK_MISSING_SHOWN);
	size_t reserved = (size_t)size - missing;

	s->nmissing = missing;
	if (reserved != s->reserved)
		SPARK_LOG(s->run, MUSTER_LOG_INFO, "%zu/%lld reserved", reserved, (long long)size);
	s->reserved = reserved;
}

static muster_status out_of_time(struct session *s)
{
	const struct spark_run *run = s->run;
	char ids[SPARK_MISSING_SHOWN * 12 + 8] = "";
	size_t i, used = 0, shown = s->nmissing < SPARK_MISSING_SHOWN ? s->nmissing
	                                                               : SPARK_MISSING_SHOWN;

	for (i = 0; i < shown; i++)
		used += (size_t)snprintf(ids + used, sizeof(ids) - used, "%s%lld", i ? ", " : "",
		                         (long long)s->missing[i]);
	if (s->nmissing > shown)
		snprintf(ids + used, sizeof(ids) - used, ", ...");
	/* Before fail(), whose reason a refused builder call would take. */
	if (s->last != NULL)
		spark_partial(s->run, s->last);
	if (s->reserved == (size_t)-1)
		run->host->fail(run->call, "reservations not complete after %ld ms (%s)",
		                spark_elapsed_ms(run),
		                run->budget_binds ? "the entry's timeout_ms" : "reservation_timeout_ms");
	else
		run->host->fail(run->call, "reservations not complete after %ld ms (%s): %zu/%lld "
		                           "reserved, %zu missing (executor ids %s)",
		                spark_elapsed_ms(run),
		                run->budget_binds ? "the entry's timeout_ms" : "reservation_timeout_ms",
		                s->reserved, (long long)run->conf->tmpl.cluster_size, s->nmissing, ids);
	return MUSTER_STATUS_TRYAGAIN;
}

/*
 * QUERY until True; the deadline passing is tryagain.  The progress QINFO
 * after a False may already hold the complete list (the last executor
 * registered in between): then it is the answer, in *complete.  Asking
 * again would race the server, which may finish as soon as every executor
 * has received the complete list.
 */
static muster_status await_complete(struct session *s, pv **complete)
{
	long backoff = SPARK_POLL_FIRST_MS, left;
	char why[400];
	enum spark_io io;
	muster_status st;
	pv *reply = NULL, *list = NULL;

	for (;;) {
		io = spark_conn_call(s->run, &s->conn, "QUERY", res_request("QUERY", NULL), &reply,
		                     why, sizeof(why));
		if (io == SPARK_IO_DEADLINE)
			return out_of_time(s);
		if (io != SPARK_IO_OK)
			return io_failed(s, why);
		if (reply->type != PV_BOOL) {
			st = unexpected(s, "QUERY", "True or False", reply);
			pv_free(reply);
			return st;
		}
		if (reply->u.b) {
			pv_free(reply);
			return MUSTER_STATUS_SUCCESS;
		}
		pv_free(reply);
		st = qinfo(s, &list, &io);
		if (io == SPARK_IO_DEADLINE)
			return out_of_time(s);
		if (st != MUSTER_STATUS_SUCCESS)
			return st;
		note_progress(s, list);
		if (s->nmissing == 0) {
			*complete = list;
			return MUSTER_STATUS_SUCCESS;
		}
		keep_last(s, list);
		list = NULL;
		left = clock_ms_until(s->run->deadline_ms);
		if (left <= 0)
			return out_of_time(s);
		clock_sleep_ms(backoff < left ? backoff : left);
		if (clock_ms_until(s->run->deadline_ms) <= 0)
			return out_of_time(s);
		backoff = backoff * 2 > SPARK_POLL_MAX_MS ? SPARK_POLL_MAX_MS : backoff * 2;
	}
}

static muster_status converse(struct session *s, pv **out, struct spark_port *port)
{
	struct res_node mine;
	const pv *found;
	muster_status st;
	pv *list = NULL;

	st = qinfo(s, &list, NULL);
	if (st != MUSTER_STATUS_SUCCESS)
		return st;
	note_progress(s, list);
	found = res_qinfo_find(list, s->self_host, s->run->executor_id);
	if (found != NULL && res_node_from_pv(found, &mine, NULL, 0) == 0) {
		/* Spark retried this task: TFoS reuses the registration as is. */
		SPARK_LOG(s->run, MUSTER_LOG_INFO, "executor %lld is already registered from %s: "
		                                  "reusing its registration (port %lld)",
		          (long long)mine.executor_id, s->self_host, (long long)mine.port);
		spark_port_rebind(s->run, s->conn.local_family, (long)mine.port, port);
		keep_last(s, list);
	} else {
		st = check_duplicate(s, list);
		keep_last(s, list);
		if (st == MUSTER_STATUS_SUCCESS)
			st = register_self(s, port);
		if (st != MUSTER_STATUS_SUCCESS)
			return st;
	}
	*out = NULL;
	st = await_complete(s, out);
	if (st == MUSTER_STATUS_SUCCESS && *out == NULL)
		st = qinfo(s, out, NULL);
	return st;
}

muster_status spark_session(struct spark_run *run, pv **out, struct spark_port *port)
{
	struct session s;
	char why[400];
	enum spark_io io;
	muster_status st;

	memset(&s, 0, sizeof(s));
	s.run = run;
	s.reserved = (size_t)-1;
	port->fd = -1;
	port->port = -1;
	*out = NULL;

	io = spark_conn_open(run, &s.conn, why, sizeof(why));
	if (io != SPARK_IO_OK) {
		spark_conn_close(&s.conn);
		return io_failed(&s, why);
	}
	s.self_host = run->conf->host != NULL ? run->conf->host : s.conn.local_host;
	st = converse(&s, out, port);
	pv_free(s.last);
	spark_conn_close(&s.conn);
	if (st != MUSTER_STATUS_SUCCESS)
		spark_port_close(port);
	return st;
}
