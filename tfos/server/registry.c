/*
 * The registrations.  One per (host, executor_id): a second REG for the
 * same pair replaces the first and is reported (a re-run task), while one
 * executor id claimed from two hosts is kept twice, as the reference does,
 * and reported as the conflict it is.  A registration is "fetched" once the
 * connection that made it received the complete list; a retried executor
 * that finds itself in the list never registers again, so a complete list
 * sent to a connection without a registration counts for an unfetched
 * registration from the same address whose own connection has closed.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "server.h"

void registry_free(struct registry *r)
{
	size_t i;

	for (i = 0; i < r->len; i++) {
		pv_free(r->items[i].data);
		free(r->items[i].host);
	}
	free(r->items);
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

/* Warn now about a registration that cannot become a ClusterSpec entry,
 * rather than only at the end. */
static void check_fields(struct muster_reserve *s, const struct conn *c, const pv *data)
{
	struct res_node n;
	char why[200];

	if (res_node_from_pv(data, &n, why, sizeof why) != 0)
		log_msg(&s->log, MUSTER_LOG_WARNING,
		        "%s: registration accepted, but it will not fit a ClusterSpec: %s", c->peer,
		        why);
}

int registry_add(struct muster_reserve *s, struct conn *c, pv *data, size_t *index)
{
	struct registry *r = &s->reg;
	const char *host = NULL;
	int64_t id = -1;
	struct reg *g;
	size_t i;

	(void)pv_get_str(pv_dict_get_str(data, "host"), &host);
	if (!pv_get_int(pv_dict_get_str(data, "executor_id"), &id) || id < 0)
		id = -1;
	check_fields(s, c, data);

	if (host != NULL && id >= 0) {
		for (i = 0; i < r->len; i++) {
			g = &r->items[i];
			if (g->executor_id != id || g->host == NULL)
				continue;
			if (strcmp(g->host, host) == 0) {
				log_msg(&s->log, MUSTER_LOG_WARNING,
				        "%s: duplicate registration of executor %lld on %s: it replaces "
				        "the one from %s",
				        c->peer, (long long)id, host, g->peer);
				pv_free(g->data);
				g->data = pv_ref(data);
				g->conn_serial = c->serial;
				snprintf(g->peer, sizeof g->peer, "%s", c->peer_host);
				set_fetched(r, g, false);
				*index = i;
				return 0;
			}
			r->conflicts++;
			log_msg(&s->log, MUSTER_LOG_ERR,
			        "%s: executor id %lld registered from %s, but %s already holds it: "
			        "duplicate executor ids make no ClusterSpec",
			        c->peer, (long long)id, host, g->host);
		}
	}
	if (r->len == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		struct reg *items = realloc(r->items, cap * sizeof *items);

		if (items == NULL)
			return -1;
		r->items = items;
		r->cap = cap;
	}
	g = &r->items[r->len];
	memset(g, 0, sizeof *g);
	if (host != NULL && (g->host = strdup(host)) == NULL)
		return -1;
	g->data = pv_ref(data);
	g->executor_id = id;
	g->conn_serial = c->serial;
	snprintf(g->peer, sizeof g->peer, "%s", c->peer_host);
	*index = r->len++;
	return 0;
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
