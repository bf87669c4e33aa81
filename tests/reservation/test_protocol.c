/*
 * The protocol helpers: requests and replies as bytes, node metadata both
 * ways with unknown fields kept, the cluster template and the ClusterSpec
 * and TF_CONFIG that TensorFlowOnSpark builds from it.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "../lib/test.h"

#include "protocol.h"

static void packed_is(const pv *v, const uint8_t *want, size_t n)
{
	uint8_t *out;
	size_t len;
	assert_int_equal(res_pack(NULL, v, &out, &len), 0);
	assert_int_equal(len, n);
	assert_memory_equal(out, want, n);
	free(out);
}

static void requests(void **state)
{
	(void)state;
	/* QUERY carries no data: a 28-byte frame. */
	pv *q = res_request("QUERY", NULL);
	static const uint8_t query[] = {0x00, 0x00, 0x00, 0x18, 0x80, 0x03, 0x7d, 0x58, 0x04, 0x00,
	                                0x00, 0x00, 0x74, 0x79, 0x70, 0x65, 0x58, 0x05, 0x00, 0x00,
	                                0x00, 0x51, 0x55, 0x45, 0x52, 0x59, 0x73, 0x2e};
	packed_is(q, query, sizeof(query));
	pv_free(q);
	/* Falsy data is left out, as the Python client does. */
	pv *s = res_request("STOP", pv_dict());
	assert_int_equal(pv_len(s), 1);
	pv_free(s);

	pv *data = pv_dict();
	assert_int_equal(pv_dict_set_str(data, "node", pv_int(1)), 0);
	pv *reg = res_request("REG", data);
	enum res_msg_type type;
	const char *name;
	const pv *got;
	char err[128];
	assert_int_equal(res_request_parse(reg, &type, &name, &got, err, sizeof(err)), 0);
	assert_int_equal(type, RES_MSG_REG);
	assert_string_equal(name, "REG");
	assert_ptr_equal(got, data);
	pv_free(reg);

	pv *odd = res_request("HELLO", NULL);
	assert_int_equal(res_request_parse(odd, &type, &name, &got, err, sizeof(err)), 0);
	assert_int_equal(type, RES_MSG_OTHER);
	assert_null(got);
	pv_free(odd);

	pv *notdict = pv_str("REG");
	assert_int_equal(res_request_parse(notdict, &type, &name, &got, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a dict"));
	pv_free(notdict);
	pv *notype = pv_dict();
	assert_int_equal(res_request_parse(notype, &type, &name, &got, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'type'"));
	pv_free(notype);
}

static void replies(void **state)
{
	(void)state;
	pv *ok = res_reply_ok();
	static const uint8_t okb[] = {0, 0, 0, 0x0a, 0x80, 0x03, 0x58, 2, 0, 0, 0, 'O', 'K', 0x2e};
	packed_is(ok, okb, sizeof(okb));
	pv_free(ok);
	pv *t = res_reply_bool(true);
	static const uint8_t tb[] = {0, 0, 0, 4, 0x80, 0x03, 0x88, 0x2e};
	packed_is(t, tb, sizeof(tb));
	pv_free(t);
	pv *e = res_reply_err();
	assert_true(pv_is_str(e, "ERR"));
	pv_free(e);

	/* Unpack: a protocol-4 'OK' as CPython 3.8+ sends it. */
	static const uint8_t ok4[] = {0x80, 0x04, 0x95, 0x06, 0, 0, 0, 0, 0, 0, 0,
	                              0x8c, 0x02, 'O', 'K', 0x94, 0x2e};
	char err[200];
	pv *v = res_unpack(NULL, ok4, sizeof(ok4), NULL, err, sizeof(err));
	assert_true(pv_is_str(v, "OK"));
	pv_free(v);
	static const uint8_t evil[] = {'c', 'o', 's', '\n', 's', 'y', 's', 't', 'e', 'm', '\n', '.'};
	assert_null(res_unpack(NULL, evil, sizeof(evil), NULL, err, sizeof(err)));
	assert_non_null(strstr(err, "GLOBAL"));
}

static void authenticated_pack(void **state)
{
	(void)state;
	static const uint8_t key[] = "a-key-of-at-least-16-bytes";
	struct res_auth srv, cli;
	uint8_t hs[RES_AUTH_HELLO_SIZE], hc[RES_AUTH_HELLO_SIZE];
	res_auth_init(&srv, key, sizeof(key) - 1, true);
	res_auth_init(&cli, key, sizeof(key) - 1, false);
	res_auth_hello(&srv, hs);
	res_auth_hello(&cli, hc);
	assert_int_equal(res_auth_accept_hello(&srv, hc, sizeof(hc)), 0);
	assert_int_equal(res_auth_accept_hello(&cli, hs, sizeof(hs)), 0);
	pv *q = res_request("QINFO", NULL);
	uint8_t *out;
	size_t n;
	assert_int_equal(res_pack(&cli, q, &out, &n), 0);
	char err[200];
	pv *back = res_unpack(&srv, out + 4, n - 4, NULL, err, sizeof(err));
	assert_non_null(back);
	assert_true(pv_equal(back, q));
	pv_free(back);
	/* The same frame again is a replay. */
	assert_null(res_unpack(&srv, out + 4, n - 4, NULL, err, sizeof(err)));
	assert_non_null(strstr(err, "authentication"));
	free(out);
	pv_free(q);
}

static const uint8_t authkey[16] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                    0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};

static void node_metadata(void **state)
{
	(void)state;
	struct res_node n = {
		.executor_id = 0, .host = "10.0.0.4", .job_name = "ps", .task_index = 0,
		.port = 40001, .addr_host = "10.0.0.4", .addr_port = 39999,
		.authkey = authkey, .authkey_len = 16,
	};
	pv *d = res_node_to_pv(&n);
	assert_non_null(d);
	static const char *order[] = {"executor_id", "host", "job_name", "task_index", "port",
	                              "tb_pid", "tb_port", "addr", "authkey"};
	assert_int_equal(pv_len(d), 9);
	for (size_t i = 0; i < 9; i++)
		assert_true(pv_is_str(d->u.dict.keys[i], order[i]));

	/* An unknown field rides along through encode and decode. */
	assert_int_equal(pv_dict_set_str(d, "gpu_uuid", pv_str("GPU-1234")), 0);
	uint8_t *out;
	size_t len;
	assert_int_equal(res_pack(NULL, d, &out, &len), 0);
	char err[200];
	pv *back = res_unpack(NULL, out + 4, len - 4, NULL, err, sizeof(err));
	assert_non_null(back);
	assert_true(pv_equal(back, d));
	struct res_node m;
	assert_int_equal(res_node_from_pv(back, &m, err, sizeof(err)), 0);
	assert_int_equal(m.port, 40001);
	assert_string_equal(m.host, "10.0.0.4");
	assert_string_equal(m.addr_host, "10.0.0.4");
	assert_int_equal(m.addr_port, 39999);
	assert_null(m.addr_path);
	assert_int_equal(m.authkey_len, 16);
	assert_memory_equal(m.authkey, authkey, 16);
	assert_true(pv_is_str(pv_dict_get_str(back, "gpu_uuid"), "GPU-1234"));
	free(out);
	pv_free(back);
	pv_free(d);

	/* A worker's addr is a path; missing fields are errors naming them. */
	n.job_name = "worker";
	n.addr_host = NULL;
	n.addr_path = "/tmp/pymp-x/listener-1";
	d = res_node_to_pv(&n);
	assert_int_equal(res_node_from_pv(d, &m, err, sizeof(err)), 0);
	assert_string_equal(m.addr_path, "/tmp/pymp-x/listener-1");
	pv *bad = pv_dict();
	assert_int_equal(pv_dict_set_str(bad, "executor_id", pv_str("0")), 0);
	assert_int_equal(res_node_from_pv(bad, &m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'executor_id' is not an int"));
	pv_free(bad);
	pv_free(d);
}

static void expect_roles(const struct res_template *t, const char *const *jobs,
                         const int64_t *indices)
{
	for (int64_t id = 0; id < t->cluster_size; id++) {
		const char *job;
		int64_t index;
		assert_int_equal(res_template_role(t, id, &job, &index, NULL, 0), 0);
		assert_string_equal(job, jobs[id]);
		assert_int_equal(index, indices[id]);
	}
}

/* Research A.7.2 examples. */
static void template_vectors(void **state)
{
	(void)state;
	struct res_template a = {.cluster_size = 4, .num_ps = 1};
	expect_roles(&a, (const char *const[]){"ps", "worker", "worker", "worker"},
	             (const int64_t[]){0, 0, 1, 2});
	struct res_template b = {.cluster_size = 5, .num_ps = 1, .master_node = "chief",
	                         .eval_node = true};
	expect_roles(&b, (const char *const[]){"ps", "chief", "evaluator", "worker", "worker"},
	             (const int64_t[]){0, 0, 0, 0, 1});
	struct res_template c = {.cluster_size = 3, .num_ps = 0, .master_node = "master"};
	expect_roles(&c, (const char *const[]){"master", "worker", "worker"},
	             (const int64_t[]){0, 0, 1});
	/* A.14: {'chief': [0]} makes executor 0 chief:0. */
	struct res_template d = {.cluster_size = 1, .master_node = "chief"};
	expect_roles(&d, (const char *const[]){"chief"}, (const int64_t[]){0});

	/* Outside the template: 'default', -1. */
	const char *job;
	int64_t index;
	assert_int_equal(res_template_role(&a, 9, &job, &index, NULL, 0), 0);
	assert_string_equal(job, "default");
	assert_int_equal(index, -1);

	char err[200];
	struct res_template bad = {.cluster_size = 2, .num_ps = 2};
	assert_int_equal(res_template_check(&bad, err, sizeof(err)), -1); /* 2 executors, 2 ps */
	assert_non_null(strstr(err, "no master node and no worker"));
	struct res_template over = {.cluster_size = 2, .num_ps = 2, .master_node = "chief"};
	assert_int_equal(res_template_check(&over, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "exceed"));
	struct res_template zero = {.cluster_size = 0};
	assert_int_equal(res_template_check(&zero, err, sizeof(err)), -1);
	struct res_template odd = {.cluster_size = 2, .master_node = "boss"};
	assert_int_equal(res_template_check(&odd, err, sizeof(err)), -1);
	assert_int_equal(res_template_role(&bad, 0, &job, &index, err, sizeof(err)), -1);
}

static pv *reg(int64_t id, const char *host, const char *job, int64_t index, int64_t port)
{
	struct res_node n = {.executor_id = id, .host = host, .job_name = job,
	                     .task_index = index, .port = port, .addr_path = "/tmp/x",
	                     .authkey = authkey, .authkey_len = 16};
	pv *d = res_node_to_pv(&n);
	assert_non_null(d);
	return d;
}

/* A.7.5: executor 3 of the 5-node template, reservations out of order. */
static void cluster_spec_vectors(void **state)
{
	(void)state;
	pv *list = pv_list();
	assert_int_equal(pv_seq_append(list, reg(4, "10.0.0.5", "worker", 1, 40004)), 0);
	assert_int_equal(pv_seq_append(list, reg(2, "10.0.0.3", "evaluator", 0, 40002)), 0);
	assert_int_equal(pv_seq_append(list, reg(0, "10.0.0.1", "ps", 0, 40000)), 0);
	assert_int_equal(pv_seq_append(list, reg(3, "10.0.0.4", "worker", 0, 40003)), 0);
	assert_int_equal(pv_seq_append(list, reg(1, "10.0.0.2", "chief", 0, 40001)), 0);
	struct res_cluster c;
	char err[200];
	assert_int_equal(res_cluster_from_qinfo(list, &c, err, sizeof(err)), 0);
	char *spec = res_cluster_json(&c);
	assert_string_equal(spec, "{\"ps\": [\"10.0.0.1:40000\"], \"chief\": [\"10.0.0.2:40001\"], "
	                          "\"evaluator\": [\"10.0.0.3:40002\"], \"worker\": "
	                          "[\"10.0.0.4:40003\", \"10.0.0.5:40004\"]}");
	assert_int_equal(c.njobs, 4);
	assert_int_equal(c.jobs[3].executor_ids[1], 4);
	free(spec);
	res_cluster_free(&c);

	/* Lookups: the retry path and what is missing. */
	assert_non_null(res_qinfo_find(list, "10.0.0.4", 3));
	assert_null(res_qinfo_find(list, "10.0.0.9", 3));
	int64_t missing[4];
	assert_int_equal(res_qinfo_missing(list, 8, missing, 4), 3);
	assert_int_equal(missing[0], 5);
	assert_int_equal(missing[2], 7);
	assert_int_equal(res_qinfo_missing(list, 5, missing, 4), 0);

	/* A repeated executor id is an error naming it and both hosts. */
	assert_int_equal(pv_seq_append(list, reg(3, "10.0.0.9", "worker", 0, 40009)), 0);
	assert_int_equal(res_cluster_from_qinfo(list, &c, err, sizeof(err)), -1);
	assert_string_equal(err, "duplicate executor id 3 (hosts 10.0.0.4 and 10.0.0.9)");
	assert_int_equal(c.njobs, 0);
	pv_free(list);

	/* An IPv6 host is bracketed; an odd entry is named by position. */
	list = pv_list();
	assert_int_equal(pv_seq_append(list, reg(0, "fd00::1", "chief", 0, 2222)), 0);
	assert_int_equal(res_cluster_from_qinfo(list, &c, err, sizeof(err)), 0);
	spec = res_cluster_json(&c);
	assert_string_equal(spec, "{\"chief\": [\"[fd00::1]:2222\"]}");
	free(spec);
	res_cluster_free(&c);
	assert_int_equal(pv_seq_append(list, pv_str("junk")), 0);
	assert_int_equal(res_cluster_from_qinfo(list, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "reservation 1"));
	pv_free(list);

	/* No reservations: an empty spec. */
	list = pv_list();
	assert_int_equal(res_cluster_from_qinfo(list, &c, err, sizeof(err)), 0);
	spec = res_cluster_json(&c);
	assert_string_equal(spec, "{}");
	free(spec);
	res_cluster_free(&c);
	pv_free(list);
}

static void truthiness(void **state)
{
	(void)state;
	pv *v[] = {pv_none(), pv_bool(false), pv_int(0), pv_float(0.0), pv_str(""), pv_list(),
	           pv_bool(true), pv_int(-1), pv_str("x")};
	for (size_t i = 0; i < 9; i++) {
		assert_int_equal(pv_truthy(v[i]), i >= 6);
		pv_free(v[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(requests),
		cmocka_unit_test(replies),
		cmocka_unit_test(authenticated_pack),
		cmocka_unit_test(node_metadata),
		cmocka_unit_test(template_vectors),
		cmocka_unit_test(cluster_spec_vectors),
		cmocka_unit_test(truthiness),
	};
	return run_tap_tests(tests, NULL, NULL);
}
