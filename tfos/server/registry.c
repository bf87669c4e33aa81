/*
 * The registrations, at most one per executor id, ids 0 to size-1, so at
 * most `size` of them, each kept encoded and at most
 * RESERVE_MAX_REGISTRATION bytes (docs/decisions.md).  What cannot be a
 * ClusterSpec entry, an id outside the range, a registration over the cap,
 * a second one from the same connection, and a different registration for
 * an id already held are refused, take no slot and change nothing; the
 * same registration again is answered 'OK', as the reference answers a
 * repeat, and kept once.  Once every id is held (the reservation is
 * complete) nothing new can register.
 *
 * A registration is "fetched" once the connection that made it received
 * the complete list; a retried executor that finds itself in the list never
 * registers again, so a complete list sent to a connection without a
 * registration counts for an unfetched registration from the same address
 * whose own connection has closed.
 */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "server.h"

int registry_init(struct registry *r, long size)
{
	memset(r, 0, sizeof *r);
	r->slot = calloc((size_t)size, sizeof *r->slot);
	return r->slot != NULL ? 0 : -1;
}

void registry_free(struct registry *r)
{
	size_t i;

	for (i = 0; i < r->len; i++) {
		free(r->items[i].pickle);
		free(r->items[i].host);
	}
	free(r->items);
	free(r->slot);
	memset(r, 0, sizeof *r);
}

bool registry_complete(const struct muster_reserve *s)
{
	return (long)s->reg.len >= s->size;
}

static void set_fetched(struct registry *r, struct reg *g, bool fetched)
{
	if (g->fetched != fetched)
		r->fetched += fetched ? 1 : (size_t)-1;
	g->fetched = fetched;
}

static enum reg_outcome refuse(struct reg_verdict *v, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static enum reg_outcome refuse(struct reg_verdict *v, int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->why, sizeof v->why, fmt, ap);
	va_end(ap);
	v->level = level;
	return REG_REFUSED;
}

/* The same registration again (a client that sent it twice): nothing
 * changes, but a connection without a registration of its own takes over
 * one whose connection has closed, as a retried executor's QINFO would. */
static enum reg_outcome repeat(struct muster_reserve *s, struct conn *c, size_t i,
                               struct reg_verdict *v)
{
	struct reg *g = &s->reg.items[i];

	if (g->conn_serial == 0 && c->reg < 0) {
		g->conn_serial = c->serial;
		snprintf(g->peer, sizeof g->peer, "%s", c->peer_host);
		c->reg = (long)i;
	}
	snprintf(v->why, sizeof v->why, "executor %lld registered again, unchanged: answered 'OK', "
	         "kept once", (long long)g->executor_id);
	v->level = MUSTER_LOG_NOTICE;
	return REG_REPEATED;
}

enum reg_outcome registry_add(struct muster_reserve *s, struct conn *c, const pv *data,
                              struct reg_verdict *v)
{
	struct registry *r = &s->reg;
	struct pv_error perr;
	struct res_node n;
	uint8_t *pickle;
	struct reg *g;
	char why[160];
	size_t len;

	/* Cheapest first: a flood of junk costs no encoding. */
	if (res_node_from_pv(data, &n, why, sizeof why) != 0)
		return refuse(v, MUSTER_LOG_WARNING, "no ClusterSpec entry: %s", why);
	if (n.executor_id < 0 || n.executor_id >= s->size)
		return refuse(v, MUSTER_LOG_WARNING, "executor id %lld is outside 0 to %ld (--size %ld)",
		              (long long)n.executor_id, s->size - 1, s->size);
	if (data->weight_bytes > RESERVE_MAX_REGISTRATION)
		return refuse(v, MUSTER_LOG_WARNING, "it carries %zu bytes of text, over the cap of %zu",
		              data->weight_bytes, RESERVE_MAX_REGISTRATION);
	if (pv_encode(data, &pickle, &len, &perr) != 0)
		return REG_NOMEM;
	if (len > RESERVE_MAX_REGISTRATION) {
		free(pickle);
		return refuse(v, MUSTER_LOG_WARNING, "%zu bytes encoded, over the cap of %zu", len,
		              RESERVE_MAX_REGISTRATION);
	}
	if (r->slot[n.executor_id] != 0) {
		size_t i = r->slot[n.executor_id] - 1;

		g = &r->items[i];
		if (g->len == len && memcmp(g->pickle, pickle, len) == 0) {
			free(pickle);
			return repeat(s, c, i, v);
		}
		free(pickle);
		if (strcmp(g->host, n.host) != 0)
			return refuse(v, MUSTER_LOG_ERR,
			              "executor id %lld registered from host %.60s, but host %.60s already "
			              "holds it (from %s)",
			              (long long)n.executor_id, n.host, g->host, g->peer);
		return refuse(v, MUSTER_LOG_ERR,
		              "executor %lld on %.60s is already registered (from %s), differently: the "
		              "first registration stands",
		              (long long)n.executor_id, n.host, g->peer);
	}
	if (c->reg >= 0) {
		free(pickle);
		return refuse(v, MUSTER_LOG_WARNING, "this connection already registered executor %lld",
		              (long long)r->items[c->reg].executor_id);
	}
	if (r->len == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		struct reg *items;

		if (cap > (size_t)s->size)
			cap = (size_t)s->size;
		items = realloc(r->items, cap * sizeof *items);
		if (items == NULL) {
			free(pickle);
			return REG_NOMEM;
		}
		r->items = items;
		r->cap = cap;
	}
	g = &r->items[r->len];
	memset(g, 0, sizeof *g);
	if ((g->host = strdup(n.host)) == NULL) {
		free(pickle);
		return REG_NOMEM;
	}
	g->pickle = pickle;
	g->len = len;
	g->executor_id = n.executor_id;
	g->conn_serial = c->serial;
	snprintf(g->peer, sizeof g->peer, "%s", c->peer_host);
	c->reg = (long)r->len;
	r->slot[n.executor_id] = ++r->len;
	return REG_ADDED;
}

void registry_mark_fetched(struct muster_reserve *s, struct conn *c)
{
	struct registry *r = &s->reg;
	size_t i;

	if (c->reg >= 0 && (size_t)c->reg < r->len && r->items[c->reg].conn_serial == c->serial) {
		set_fetched(r, &r->items[c->reg], true);
		return;
	}
	if (c->reg >= 0)
		return;
	for (i = 0; i < r->len; i++) {
		struct reg *g = &r->items[i];

		if (!g->fetched && g->conn_serial == 0 && strcmp(g->peer, c->peer_host) == 0) {
			log_msg(&s->log, MUSTER_LOG_INFO,
			        "%s: the complete list fetched again without a registration: counted "
			        "for executor %lld (a retried executor)",
			        c->peer, (long long)g->executor_id);
			g->conn_serial = c->serial;
			c->reg = (long)i;
			set_fetched(r, g, true);
			return;
		}
	}
}

void registry_conn_closed(struct muster_reserve *s, const struct conn *c)
{
	struct registry *r = &s->reg;

	if (c->reg >= 0 && (size_t)c->reg < r->len && r->items[c->reg].conn_serial == c->serial)
		r->items[c->reg].conn_serial = 0;
}
