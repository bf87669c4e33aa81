/*
 * protocol.h's messages and node metadata.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/reason.h"
#include "protocol.h"

bool pv_truthy(const pv *v)
{
	if (!v)
		return false;
	switch (v->type) {
	case PV_NONE:
		return false;
	case PV_BOOL:
		return v->u.b;
	case PV_INT:
		return v->u.i != 0;
	case PV_FLOAT:
		return v->u.f != 0.0;
	default:
		return pv_len(v) != 0;
	}
}

pv *res_request(const char *type, pv *data)
{
	pv *msg = pv_dict();
	if (!msg || pv_dict_set_str(msg, "type", pv_str(type)) != 0)
		goto fail;
	/* The Python client: `if data: msg['data'] = data`. */
	if (pv_truthy(data)) {
		int rc = pv_dict_set_str(msg, "data", data);
		data = NULL;
		if (rc != 0)
			goto fail;
	}
	pv_free(data);
	return msg;
fail:
	pv_free(data);
	pv_free(msg);
	return NULL;
}

int res_request_parse(const pv *msg, enum res_msg_type *type, const char **type_name,
                      const pv **data, char *err, size_t errlen)
{
	if (!msg || msg->type != PV_DICT)
		return reason_fail(err, errlen, "request is not a dict");
	const pv *t = pv_dict_get_str(msg, "type");
	if (!t)
		return reason_fail(err, errlen, "request has no 'type'");
	if (t->type != PV_STR)
		return reason_fail(err, errlen, "request 'type' is not a str");
	static const struct {
		const char *name;
		enum res_msg_type type;
	} types[] = {{"REG", RES_MSG_REG}, {"QUERY", RES_MSG_QUERY},
	             {"QINFO", RES_MSG_QINFO}, {"STOP", RES_MSG_STOP}};
	*type = RES_MSG_OTHER;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (pv_is_str(t, types[i].name))
			*type = types[i].type;
	*type_name = t->u.s.data;
	*data = pv_dict_get_str(msg, "data");
	return 0;
}

pv *res_reply_ok(void) { return pv_str("OK"); }
pv *res_reply_err(void) { return pv_str("ERR"); }
pv *res_reply_bool(bool b) { return pv_bool(b); }

int res_pack(struct res_auth *auth, const pv *v, uint8_t **out, size_t *out_len)
{
	uint8_t *pickle;
	size_t n;
	if (pv_encode(v, &pickle, &n, NULL) != 0)
		return -1;
	int rc = res_frame_build(auth, pickle, n, out, out_len);
	free(pickle);
	return rc;
}

pv *res_unpack(struct res_auth *auth, const uint8_t *payload, size_t len,
               const struct pv_limits *limits, char *err, size_t errlen)
{
	if (auth) {
		size_t n;
		if (res_auth_open(auth, payload, len, &n) != 0) {
			reason_fail(err, errlen, "frame failed authentication");
			return NULL;
		}
		len = n;
	}
	struct pv_error perr;
	pv *v = pv_decode(payload, len, limits, &perr);
	if (!v)
		reason_fail(err, errlen, "%s", perr.message);
	return v;
}

/* ---- node metadata ---- */

pv *res_node_to_pv(const struct res_node *n)
{
	if (!n->host || !n->job_name)
		return NULL;
	pv *d = pv_dict();
	pv *addr;
	if (n->addr_path) {
		addr = pv_str(n->addr_path);
	} else if (n->addr_host) {
		addr = pv_tuple();
		if (addr && (pv_seq_append(addr, pv_str(n->addr_host)) != 0 ||
		             pv_seq_append(addr, pv_int(n->addr_port)) != 0)) {
			pv_free(addr);
			addr = NULL;
		}
	} else {
		addr = pv_none();
	}
	if (!d || !addr || pv_dict_set_str(d, "executor_id", pv_int(n->executor_id)) ||
	    pv_dict_set_str(d, "host", pv_str(n->host)) ||
	    pv_dict_set_str(d, "job_name", pv_str(n->job_name)) ||
	    pv_dict_set_str(d, "task_index", pv_int(n->task_index)) ||
	    pv_dict_set_str(d, "port", pv_int(n->port)) ||
	    pv_dict_set_str(d, "tb_pid", pv_int(n->tb_pid)) ||
	    pv_dict_set_str(d, "tb_port", pv_int(n->tb_port))) {
		pv_free(addr);
		pv_free(d);
		return NULL;
	}
	if (pv_dict_set_str(d, "addr", addr) ||
	    pv_dict_set_str(d, "authkey", pv_bytes(n->authkey ? n->authkey : (const uint8_t *)"",
	                                           n->authkey ? n->authkey_len : 0))) {
		pv_free(d);
		return NULL;
	}
	return d;
}

static int need_int(const pv *d, const char *key, int64_t *out, char *err, size_t errlen)
{
	const pv *v = pv_dict_get_str(d, key);
	if (!v)
		return reason_fail(err, errlen, "registration has no '%s'", key);
	if (!pv_get_int(v, out))
		return reason_fail(err, errlen, "registration '%s' is not an int", key);
	return 0;
}

static int need_str(const pv *d, const char *key, const char **out, char *err, size_t errlen)
{
	const pv *v = pv_dict_get_str(d, key);
	if (!v)
		return reason_fail(err, errlen, "registration has no '%s'", key);
	if (!pv_get_str(v, out) || strlen(*out) != v->u.s.len)
		return reason_fail(err, errlen, "registration '%s' is not a str", key);
	return 0;
}

int res_node_from_pv(const pv *d, struct res_node *n, char *err, size_t errlen)
{
	memset(n, 0, sizeof(*n));
	if (!d || d->type != PV_DICT)
		return reason_fail(err, errlen, "registration is not a dict");
	if (need_int(d, "executor_id", &n->executor_id, err, errlen) ||
	    need_str(d, "host", &n->host, err, errlen) ||
	    need_str(d, "job_name", &n->job_name, err, errlen) ||
	    need_int(d, "task_index", &n->task_index, err, errlen) ||
	    need_int(d, "port", &n->port, err, errlen))
		return -1;
	pv_get_int(pv_dict_get_str(d, "tb_pid"), &n->tb_pid);
	pv_get_int(pv_dict_get_str(d, "tb_port"), &n->tb_port);
	const pv *addr = pv_dict_get_str(d, "addr");
	if (addr && addr->type == PV_STR) {
		n->addr_path = addr->u.s.data;
	} else if (addr && addr->type == PV_TUPLE && pv_len(addr) == 2 &&
	           pv_get_str(pv_seq_at(addr, 0), &n->addr_host)) {
		if (!pv_get_int(pv_seq_at(addr, 1), &n->addr_port))
			n->addr_host = NULL;
	}
	const pv *key = pv_dict_get_str(d, "authkey");
	if (key && key->type == PV_BYTES) {
		n->authkey = (const uint8_t *)key->u.s.data;
		n->authkey_len = key->u.s.len;
	}
	return 0;
}
