/* One request, one reply, as TensorFlowOnSpark's server answers:
 * REG -> 'OK', QUERY -> True/False, QINFO -> the list, STOP -> 'OK',
 * another type -> 'ERR'; a REG that registers nothing (registry.c) ->
 * 'ERR'; anything that is not a request closes the connection without a
 * reply. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "protocol.h"
#include "server.h"

static struct blob *encode(const pv *v)
{
	struct pv_error perr;
	uint8_t *bytes = NULL;
	size_t len = 0;
	struct blob *b;

	if (v == NULL || pv_encode(v, &bytes, &len, &perr) != 0)
		return NULL;
	b = blob_new(bytes, len);
	free(bytes);
	return b;
}

static struct blob *encode_free(pv *v)
{
	struct blob *b = encode(v);

	pv_free(v);
	return b;
}

int dispatch_init_replies(struct muster_reserve *s)
{
	s->reply_ok = encode_free(res_reply_ok());
	s->reply_err = encode_free(res_reply_err());
	s->reply_true = encode_free(res_reply_bool(true));
	s->reply_false = encode_free(res_reply_bool(false));
	return s->reply_ok && s->reply_err && s->reply_true && s->reply_false ? 0 : -1;
}

/* The QINFO answer: every registration in arrival order, put together
 * from their encodings once per change of the registry and shared by all
 * connections. */
static struct blob *list_reply(struct muster_reserve *s)
{
	struct pv_encoded *items;
	struct pv_error perr;
	uint8_t *bytes = NULL;
	size_t len = 0, i;

	if (s->reply_list != NULL)
		return s->reply_list;
	items = malloc((s->reg.len ? s->reg.len : 1) * sizeof *items);
	if (items == NULL)
		return NULL;
	for (i = 0; i < s->reg.len; i++) {
		items[i].pickle = s->reg.items[i].pickle;
		items[i].len = s->reg.items[i].len;
	}
	if (pv_encode_list_of(items, s->reg.len, &bytes, &len, &perr) == 0 &&
	    (s->reply_list = blob_new(bytes, len)) != NULL)
		log_msg(&s->log, MUSTER_LOG_DEBUG, "the QINFO list encoded: %zu registrations, %zu bytes",
		        s->reg.len, len);
	free(bytes);
	free(items);
	return s->reply_list;
}

/* A request not served, a REG that registers nothing or an unknown type, is
 * answered 'ERR' (the reference's word for what it does not serve), and
 * the connection is not read for a while (conn.c).  Only a connection's
 * first is logged: a client repeating one costs a line, not a line per
 * frame. */
static int refuse(struct muster_reserve *s, struct conn *c, int level, const char *what,
                  const char *why)
{
	c->refused++;
	if (c->refused == 1)
		log_msg(&s->log, level,
		        "%s: %s refused, answered 'ERR': %s (this connection's further refusals are "
		        "logged at -vv)",
		        c->peer, what, why);
	else
		log_msg(&s->log, MUSTER_LOG_DEBUG, "%s: %s refused (%lu on this connection): %s",
		        c->peer, what, c->refused, why);
	return conn_send(c, s->reply_err) == 0 ? DISPATCH_REFUSED : -1;
}

static int handle_reg(struct muster_reserve *s, struct conn *c, const pv *data)
{
	struct reg_verdict v;

	if (data == NULL) {
		/* The reference fails with a KeyError and drops the connection. */
		log_msg(&s->log, MUSTER_LOG_WARNING, "%s: dropped: a REG without data", c->peer);
		return -1;
	}
	switch (registry_add(s, c, data, &v)) {
	case REG_ADDED:
		blob_unref(s->reply_list);
		s->reply_list = NULL;
		report_progress(s, registry_complete(s));
		break;
	case REG_REPEATED:
		/* Served, so not paused: logged once per connection all the same. */
		log_msg(&s->log, c->repeated++ == 0 ? v.level : MUSTER_LOG_DEBUG, "%s: %s", c->peer,
		        v.why);
		break;
	case REG_REFUSED:
		return refuse(s, c, v.level, "REG", v.why);
	case REG_NOMEM:
	default:
		log_msg(&s->log, MUSTER_LOG_ERR, "%s: out of memory storing a registration", c->peer);
		return -1;
	}
	return conn_send(c, s->reply_ok);
}

int dispatch_request(struct muster_reserve *s, struct conn *c, const uint8_t *pickle, size_t len)
{
	struct pv_error perr;
	enum res_msg_type type;
	const char *type_name;
	const pv *data;
	char why[200];
	pv *msg;
	int rc;

	msg = pv_decode(pickle, len, &s->limits, &perr);
	if (msg == NULL) {
		log_msg(&s->log, MUSTER_LOG_WARNING, "%s: dropped: %s", c->peer, perr.message);
		return -1;
	}
	if (res_request_parse(msg, &type, &type_name, &data, why, sizeof why) != 0) {
		log_msg(&s->log, MUSTER_LOG_WARNING, "%s: dropped: %s", c->peer, why);
		pv_free(msg);
		return -1;
	}
	switch (type) {
	case RES_MSG_REG:
		rc = handle_reg(s, c, data);
		break;
	case RES_MSG_QUERY:
		rc = conn_send(c, registry_complete(s) ? s->reply_true : s->reply_false);
		break;
	case RES_MSG_QINFO: {
		struct blob *b = list_reply(s);

		rc = b != NULL ? conn_send(c, b) : -1;
		if (rc == 0 && registry_complete(s))
			registry_mark_fetched(s, c);
		break;
	}
	case RES_MSG_STOP:
		log_msg(&s->log, MUSTER_LOG_NOTICE, "%s: STOP requested: no more reservations served",
		        c->peer);
		s->stopped_by_request = true;
		rc = conn_send(c, s->reply_ok);
		break;
	case RES_MSG_OTHER:
	default:
		snprintf(why, sizeof why, "an unknown type '%.60s'", type_name);
		rc = refuse(s, c, MUSTER_LOG_INFO, "request", why);
		break;
	}
	pv_free(msg);
	return rc;
}
