/*
 * Fuzz target: the reservation protocol as a server or client reads it —
 * the length framing (fed in uneven pieces, as recv gives them), the hello
 * and HMAC-SHA256 tags when authentication is on, the pickle decoder,
 * then the messages: a request and its registration (with the template's
 * role for it), or a QINFO reply's ClusterSpec, TF_CONFIG and missing
 * executors.  The first byte picks the mode: 0 plain frames; 1 the peer's
 * hello first, then tagged frames as they came; 2 both hellos exchanged
 * and each payload sealed by the peer first, so the bytes behind a good
 * tag are fuzzed too.  Bit 2 puts the side under test on the server.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "fuzz.h"
#include "protocol.h"

static const uint8_t key[] = "fuzz-key-0123456789abcdef";

/* Small limits, so that each one is reached. */
static const struct pv_limits limits = {
	.max_input = 1 << 16,
	.max_depth = 16,
	.max_elements = 4096,
	.max_expanded = 1 << 16,
	.max_memo = 256,
};

static void registration(const pv *data)
{
	static const struct res_template tpl = { 4, 1, "chief", true };
	struct res_node node;
	const char *job;
	int64_t index;
	char err[200];

	if (res_node_from_pv(data, &node, err, sizeof(err)) != 0)
		return;
	pv_free(res_node_to_pv(&node));
	res_template_role(&tpl, node.executor_id, &job, &index, err, sizeof(err));
}

static void qinfo(const pv *list)
{
	struct res_cluster c;
	int64_t missing[8];
	char err[200];

	res_qinfo_missing(list, 4, missing, 8);
	res_qinfo_find(list, "localhost", 0);
	if (res_cluster_from_qinfo(list, &c, err, sizeof(err)) != 0)
		return;
	free(res_cluster_json(&c));
	res_cluster_free(&c);
}

static void message(struct res_auth *auth, const uint8_t *payload, size_t len)
{
	enum res_msg_type type;
	const char *name;
	const pv *data;
	char err[200];
	pv *v = res_unpack(auth, payload, len, &limits, err, sizeof(err));

	if (v == NULL)
		return;
	if (res_request_parse(v, &type, &name, &data, err, sizeof(err)) == 0) {
		if (type == RES_MSG_REG && data != NULL)
			registration(data);
	} else if (v->type == PV_LIST) {
		qinfo(v);
	}
	pv_free(v);
}

/* One received frame: a hello, or a message (sealed by the peer in mode 2). */
static void frame(int mode, struct res_auth *me, struct res_auth *peer, int *hello,
                  const uint8_t *payload, size_t len)
{
	uint8_t *sealed;
	size_t n;

	if (mode == 0) {
		message(NULL, payload, len);
	} else if (mode == 1 && !*hello) {
		*hello = res_auth_accept_hello(me, payload, len) == 0;
	} else if (mode == 1) {
		message(me, payload, len);
	} else if (res_frame_build(peer, payload, len, &sealed, &n) == 0) {
		message(me, sealed + RES_FRAME_HEADER_SIZE, n - RES_FRAME_HEADER_SIZE);
		free(sealed);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct res_frame_reader r;
	struct res_auth me, peer;
	uint8_t mine[RES_AUTH_HELLO_SIZE], theirs[RES_AUTH_HELLO_SIZE];
	int mode, hello = 0;
	size_t piece = 1;

	if (size < 1)
		return 0;
	mode = (data[0] & 3) % 3;
	res_auth_init(&me, key, sizeof(key) - 1, (data[0] & 4) != 0);
	res_auth_init(&peer, key, sizeof(key) - 1, (data[0] & 4) == 0);
	res_auth_hello(&me, mine);
	if (mode == 2 && (res_auth_hello(&peer, theirs) != 0 ||
	                  res_auth_accept_hello(&me, theirs, sizeof(theirs)) != 0 ||
	                  res_auth_accept_hello(&peer, mine, sizeof(mine)) != 0))
		return 0;
	data++, size--;
	res_frame_reader_init(&r, 1 << 16);
	while (size > 0) {
		size_t used = 0, len = piece < size ? piece : size;
		enum res_frame_status s = res_frame_feed(&r, data, len, &used);

		data += used, size -= used;
		piece = piece % 7 + 1; /* pieces of 1 to 7 bytes, as recv may give them */
		if (s == RES_FRAME_READY) {
			const uint8_t *payload = res_frame_payload(&r, &len);

			frame(mode, &me, &peer, &hello, payload, len);
			res_frame_next(&r);
		} else if (s != RES_FRAME_MORE) {
			break;
		}
	}
	res_frame_reader_free(&r);
	res_auth_clear(&me);
	res_auth_clear(&peer);
	return 0;
}
