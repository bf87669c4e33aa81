/*
 * The pickle codec on crafted input: round trips, the byte vectors of
 * real TensorFlowOnSpark requests, every forbidden opcode, and hostile input (truncated,
 * oversized, deeply nested, memo out of range, recursive, exponential
 * sharing) rejected with an error, under ASan's leak check.
 */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/test.h"

#include "pickle.h"

#define B(...) ((const uint8_t[]){__VA_ARGS__}), sizeof((const uint8_t[]){__VA_ARGS__})

/* Decode must fail, with `needle` in the message; returns the error. */
static struct pv_error reject(const uint8_t *p, size_t n, const struct pv_limits *lim,
                              const char *needle)
{
	struct pv_error err;
	memset(&err, 0, sizeof(err));
	pv *v = pv_decode(p, n, lim, &err);
	if (v) {
		pv_free(v);
		fail_msg("decoded, expected an error with \"%s\"", needle);
	}
	if (!strstr(err.message, needle))
		fail_msg("error \"%s\" lacks \"%s\"", err.message, needle);
	return err;
}

static pv *accept_(const uint8_t *p, size_t n)
{
	struct pv_error err;
	pv *v = pv_decode(p, n, NULL, &err);
	if (!v)
		fail_msg("rejected: %s", err.message);
	return v;
}

static pv *sample_tree(void)
{
	pv *d = pv_dict();
	pv *t = pv_tuple();
	pv *l = pv_list();
	assert_int_equal(pv_seq_append(t, pv_str("10.0.0.4")), 0);
	assert_int_equal(pv_seq_append(t, pv_int(39999)), 0);
	assert_int_equal(pv_seq_append(l, pv_none()), 0);
	assert_int_equal(pv_seq_append(l, pv_bool(true)), 0);
	assert_int_equal(pv_seq_append(l, pv_float(-2.25)), 0);
	assert_int_equal(pv_seq_append(l, pv_int(INT64_MIN)), 0);
	assert_int_equal(pv_seq_append(l, pv_int(INT64_MAX)), 0);
	assert_int_equal(pv_seq_append(l, pv_int(-1)), 0);
	assert_int_equal(pv_seq_append(l, pv_int((int64_t)1 << 40)), 0);
	assert_int_equal(pv_seq_append(l, pv_bytes("\0\1\2", 3)), 0);
	assert_int_equal(pv_seq_append(l, pv_strn("nul\0inside", 10)), 0);
	assert_int_equal(pv_dict_set_str(d, "addr", t), 0);
	assert_int_equal(pv_dict_set_str(d, "values", l), 0);
	assert_int_equal(pv_dict_set_str(d, "unknown_field", pv_dict()), 0);
	assert_int_equal(pv_dict_set(d, pv_int(7), pv_str("int key")), 0);
	return d;
}

static void round_trip(void **state)
{
	(void)state;
	pv *d = sample_tree();
	uint8_t *out;
	size_t n;
	struct pv_error err;
	assert_int_equal(pv_encode(d, &out, &n, &err), 0);
	assert_int_equal(out[0], 0x80);
	assert_int_equal(out[1], 3);
	assert_int_equal(out[n - 1], '.');
	pv *back = pv_decode(out, n, NULL, &err);
	assert_non_null(back);
	assert_true(pv_equal(d, back));
	/* Insertion order survives, unknown fields included. */
	assert_true(pv_is_str(back->u.dict.keys[0], "addr"));
	assert_true(pv_is_str(back->u.dict.keys[2], "unknown_field"));
	assert_int_equal(pv_len(pv_dict_get_str(back, "values")), 9);
	pv *copy = pv_copy(back);
	assert_true(pv_equal(copy, d));
	pv_free(copy);
	pv_free(back);
	free(out);
	pv_free(d);
}

/* The minimal protocol-3 QUERY we emit, and Python's forms. */
static void query_vectors(void **state)
{
	(void)state;
	pv *q = pv_dict();
	assert_int_equal(pv_dict_set_str(q, "type", pv_str("QUERY")), 0);
	uint8_t *out;
	size_t n;
	assert_int_equal(pv_encode(q, &out, &n, NULL), 0);
	static const uint8_t want[] = {0x80, 0x03, 0x7d, 0x58, 0x04, 0x00, 0x00, 0x00, 0x74, 0x79,
	                               0x70, 0x65, 0x58, 0x05, 0x00, 0x00, 0x00, 0x51, 0x55, 0x45,
	                               0x52, 0x59, 0x73, 0x2e};
	assert_int_equal(n, sizeof(want));
	assert_memory_equal(out, want, n);
	free(out);

	/* Python 3.8+ (protocol 4, FRAME + MEMOIZE) and 3.0-3.7 (BINPUT). */
	pv *p4 = accept_(B(0x80, 0x04, 0x95, 0x13, 0, 0, 0, 0, 0, 0, 0, 0x7d, 0x94, 0x8c, 0x04, 't',
	                   'y', 'p', 'e', 0x94, 0x8c, 0x05, 'Q', 'U', 'E', 'R', 'Y', 0x94, 0x73, 0x2e));
	pv *p3 = accept_(B(0x80, 0x03, 0x7d, 0x71, 0x00, 0x58, 0x04, 0, 0, 0, 't', 'y', 'p', 'e', 0x71,
	                   0x01, 0x58, 0x05, 0, 0, 0, 'Q', 'U', 'E', 'R', 'Y', 0x71, 0x02, 0x73, 0x2e));
	assert_true(pv_equal(p4, q));
	assert_true(pv_equal(p3, q));
	pv_free(p4);
	pv_free(p3);
	pv_free(q);

	/* Replies: 'OK', True, False, [] at protocol 4. */
	pv *ok = accept_(B(0x80, 0x04, 0x95, 0x06, 0, 0, 0, 0, 0, 0, 0, 0x8c, 0x02, 'O', 'K', 0x94, 0x2e));
	assert_true(pv_is_str(ok, "OK"));
	pv_free(ok);
	pv *t = accept_(B(0x80, 0x04, 0x88, 0x2e));
	assert_true(t->type == PV_BOOL && t->u.b);
	pv_free(t);
	pv *empty = accept_(B(0x80, 0x04, 0x5d, 0x94, 0x2e));
	assert_true(empty->type == PV_LIST && pv_len(empty) == 0);
	pv_free(empty);
}

/* A ps executor's REG as TensorFlowOnSpark sends it, byte for byte (185 bytes framed; the 181-byte pickle). */
static void ps_registration_bytes(void **state)
{
	(void)state;
	pv *reg = accept_(B(
	    0x80, 0x04, 0x95, 0xaa, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x7d, 0x94, 0x28, 0x8c,
	    0x04, 0x74, 0x79, 0x70, 0x65, 0x94, 0x8c, 0x03, 0x52, 0x45, 0x47, 0x94, 0x8c, 0x04, 0x64,
	    0x61, 0x74, 0x61, 0x94, 0x7d, 0x94, 0x28, 0x8c, 0x0b, 0x65, 0x78, 0x65, 0x63, 0x75, 0x74,
	    0x6f, 0x72, 0x5f, 0x69, 0x64, 0x94, 0x4b, 0x00, 0x8c, 0x04, 0x68, 0x6f, 0x73, 0x74, 0x94,
	    0x8c, 0x08, 0x31, 0x30, 0x2e, 0x30, 0x2e, 0x30, 0x2e, 0x34, 0x94, 0x8c, 0x08, 0x6a, 0x6f,
	    0x62, 0x5f, 0x6e, 0x61, 0x6d, 0x65, 0x94, 0x8c, 0x02, 0x70, 0x73, 0x94, 0x8c, 0x0a, 0x74,
	    0x61, 0x73, 0x6b, 0x5f, 0x69, 0x6e, 0x64, 0x65, 0x78, 0x94, 0x4b, 0x00, 0x8c, 0x04, 0x70,
	    0x6f, 0x72, 0x74, 0x94, 0x4d, 0x41, 0x9c, 0x8c, 0x06, 0x74, 0x62, 0x5f, 0x70, 0x69, 0x64,
	    0x94, 0x4b, 0x00, 0x8c, 0x07, 0x74, 0x62, 0x5f, 0x70, 0x6f, 0x72, 0x74, 0x94, 0x4b, 0x00,
	    0x8c, 0x04, 0x61, 0x64, 0x64, 0x72, 0x94, 0x68, 0x07, 0x4d, 0x3f, 0x9c, 0x86, 0x94, 0x8c,
	    0x07, 0x61, 0x75, 0x74, 0x68, 0x6b, 0x65, 0x79, 0x94, 0x43, 0x10, 0x00, 0x11, 0x22, 0x33,
	    0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x94, 0x75, 0x75,
	    0x2e));
	const pv *data = pv_dict_get_str(reg, "data");
	assert_true(pv_is_str(pv_dict_get_str(reg, "type"), "REG"));
	assert_int_equal(pv_len(data), 9);
	int64_t port;
	assert_true(pv_get_int(pv_dict_get_str(data, "port"), &port));
	assert_int_equal(port, 40001);
	const pv *addr = pv_dict_get_str(data, "addr");
	assert_ptr_equal(pv_seq_at(addr, 0), pv_dict_get_str(data, "host"));
	assert_true(pv_get_int(pv_seq_at(addr, 1), &port));
	assert_int_equal(port, 39999);
	assert_int_equal(pv_len(pv_dict_get_str(data, "authkey")), 16);
	/* Re-encoded without memo ops, it still says the same. */
	uint8_t *out;
	size_t n;
	assert_int_equal(pv_encode(reg, &out, &n, NULL), 0);
	pv *again = accept_(out, n);
	assert_true(pv_equal(again, reg));
	pv_free(again);
	free(out);
	pv_free(reg);
}

static void forbidden_opcodes(void **state)
{
	(void)state;
	static const struct {
		uint8_t op;
		const char *name;
	} ops[] = {{'c', "GLOBAL"}, {0x93, "STACK_GLOBAL"}, {'R', "REDUCE"}, {'b', "BUILD"},
	           {'i', "INST"}, {'o', "OBJ"}, {0x81, "NEWOBJ"}, {0x92, "NEWOBJ_EX"},
	           {'P', "PERSID"}, {'Q', "BINPERSID"}, {0x82, "EXT1"}, {0x83, "EXT2"},
	           {0x84, "EXT4"}};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		/* After a harmless prefix, so the offset is not trivially 0. */
		uint8_t p[] = {0x80, 0x04, 'N', 'N', ops[i].op, 'o', 's', '\n', 's', 'y', 's', 't',
		               'e', 'm', '\n', '.'};
		struct pv_error err = reject(p, sizeof(p), NULL, ops[i].name);
		assert_int_equal(err.offset, 4);
		assert_int_equal(err.opcode, ops[i].op);
		assert_non_null(strstr(err.message, "at byte 4"));
		assert_non_null(strstr(err.message, "code"));
	}
	/* The classic exploit, as Python writes it: os.system('id'). */
	reject(B('c', 'o', 's', '\n', 's', 'y', 's', 't', 'e', 'm', '\n', '(', 'V', 'i', 'd', '\n',
	         't', 'R', '.'),
	       NULL, "GLOBAL (0x63) at byte 0");
	/* Sets and out-of-band buffers are data, but not ours. */
	reject(B(0x80, 0x04, 0x8f, '.'), NULL, "EMPTY_SET");
	reject(B(0x80, 0x04, '(', 0x91, '.'), NULL, "FROZENSET");
	reject(B(0x80, 0x05, 0x97, '.'), NULL, "NEXT_BUFFER");
	reject(B(0x80, 0x04, 0xff, '.'), NULL, "unknown opcode");
	reject(B(0x80, 0x06, 'N', '.'), NULL, "unsupported protocol");
}

/* Every proper prefix of a valid pickle is an error, never a crash. */
static void truncated(void **state)
{
	(void)state;
	pv *d = sample_tree();
	uint8_t *out;
	size_t n;
	assert_int_equal(pv_encode(d, &out, &n, NULL), 0);
	for (size_t k = 0; k < n; k++) {
		struct pv_error err;
		pv *v = pv_decode(out, k, NULL, &err);
		assert_null(v);
	}
	reject(B(0x80, 0x03, 'X', 0xff, 0xff, 0xff, 0x7f, 'a', '.'), NULL, "truncated");
	reject(B(0x80, 0x04, 0x8d, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, '.'), NULL,
	       "truncated");
	reject(B(0x80, 0x04, 0x95, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 'N', '.'), NULL, "frame");
	reject(B('I', '1', '2'), NULL, "end of line");
	/* Bytes after STOP, and a stack that is not one value. */
	reject(B('N', '.', 'N'), NULL, "after STOP");
	reject(B('N', 'N', '.'), NULL, "2 values");
	reject(B('(', 'N', '.'), NULL, "MARK left open");
	reject(B('.'), NULL, "0 values");
	reject(B('a', '.'), NULL, "underflow");
	reject(B('N', 'e', '.'), NULL, "MARK");
	reject(B('}', 'N', 's', '.'), NULL, "underflow");
	reject(B('N', 'N', 'a', '.'), NULL, "not a list");
	reject(B('(', 'N', 'd', '.'), NULL, "odd number");
	free(out);
	pv_free(d);
}

static void oversized(void **state)
{
	(void)state;
	struct pv_limits lim = {.max_input = 8};
	reject(B(0x80, 0x03, 'X', 3, 0, 0, 0, 'a', 'b', 'c', '.'), &lim, "limit");
	/* More values than allowed. */
	struct pv_limits few = {.max_elements = 5};
	uint8_t many[64];
	size_t n = 0;
	many[n++] = ']';
	many[n++] = '(';
	for (int i = 0; i < 10; i++)
		many[n++] = 'N';
	many[n++] = 'e';
	many[n++] = '.';
	reject(many, n, &few, "values");
	/* A memo index beyond the limit, and one never defined. */
	struct pv_limits memo = {.max_memo = 4};
	reject(B('N', 'r', 0x10, 0, 0, 0, '.'), &memo, "memo index 16 beyond");
	reject(B('N', 'r', 0xff, 0xff, 0xff, 0xff, '.'), NULL, "beyond the limit");
	reject(B(0x80, 0x02, 'N', 'q', 0x00, '0', 'h', 0x01, '.'), NULL, "memo index 1 is not defined");
	reject(B(0x80, 0x02, 'j', 0xff, 0xff, 0xff, 0xff, '.'), NULL, "not defined");
	reject(B('g', '9', '9', '\n', '.'), NULL, "not defined");
	reject(B(0x80, 0x04, 0x94, '.'), NULL, "underflow");
	/* Ints outside int64. */
	reject(B(0x80, 0x02, 0x8a, 0x09, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x00, '.'), NULL, "int64");
	reject(B(0x80, 0x02, 0x8a, 0x09, 0, 0, 0, 0, 0, 0, 0, 0x7f, 0xff, '.'), NULL, "int64");
	reject(B('L', '9', '2', '2', '3', '3', '7', '2', '0', '3', '6', '8', '5', '4', '7', '7',
	         '5', '8', '0', '8', 'L', '\n', '.'),
	       NULL, "int64");
	reject(B(0x80, 0x02, 0x8b, 0xff, 0xff, 0xff, 0xff, '.'), NULL, "negative");
}

static void long_ints(void **state)
{
	(void)state;
	/* LONG1 of 8 bytes is INT64_MIN; 9 bytes with a pure sign byte fits. */
	pv *v = accept_(B(0x80, 0x02, 0x8a, 0x08, 0, 0, 0, 0, 0, 0, 0, 0x80, '.'));
	assert_true(v->type == PV_INT && v->u.i == INT64_MIN);
	pv_free(v);
	v = accept_(B(0x80, 0x02, 0x8a, 0x09, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x00, '.'));
	assert_true(v->u.i == INT64_MAX);
	pv_free(v);
	v = accept_(B(0x80, 0x02, 0x8a, 0x01, 0xff, '.'));
	assert_true(v->u.i == -1);
	pv_free(v);
	v = accept_(B(0x80, 0x02, 0x8a, 0x00, '.'));
	assert_true(v->u.i == 0);
	pv_free(v);
	v = accept_(B('J', 0xff, 0xff, 0xff, 0xff, '.')); /* task_index = -1 */
	assert_true(v->u.i == -1);
	pv_free(v);
	v = accept_(B('I', '0', '1', '\n', '.'));
	assert_true(v->type == PV_BOOL && v->u.b);
	pv_free(v);
	v = accept_(B('I', '-', '4', '2', '\n', '.'));
	assert_true(v->type == PV_INT && v->u.i == -42);
	pv_free(v);
}

/* Protocol 0 text forms, as Python 2 (TFoS 1.x) wrote them. */
static void protocol0_text(void **state)
{
	(void)state;
	static const char p[] = "(dp0\nS'host'\np1\nS'10.0.0.4\\n\\x41'\np2\nsS'port'\np3\n"
	                        "I40001\nsS'addr'\np4\n(g2\nL39999L\ntp5\nsVcaf\\u00e9\np6\n"
	                        "F1.5\ns.";
	pv *v = accept_((const uint8_t *)p, sizeof(p) - 1);
	assert_true(pv_is_str(pv_dict_get_str(v, "host"), "10.0.0.4\nA"));
	const pv *addr = pv_dict_get_str(v, "addr");
	assert_ptr_equal(pv_seq_at(addr, 0), pv_dict_get_str(v, "host"));
	const pv *f = pv_dict_get_str(v, "caf\xc3\xa9");
	assert_true(f && f->type == PV_FLOAT && f->u.f == 1.5);
	pv_free(v);
	reject((const uint8_t *)"S'unterminated\n.", 16, NULL, "quoted");
	reject((const uint8_t *)"V\\u12\n.", 7, NULL, "escape");
	reject((const uint8_t *)"Fxyz\n.", 6, NULL, "float");
}

static void deep_nesting(void **state)
{
	(void)state;
	/* 100 nested lists: ]]]...  then 99 APPENDs. */
	uint8_t p[256];
	size_t n = 0;
	for (int i = 0; i < 100; i++)
		p[n++] = ']';
	for (int i = 0; i < 99; i++)
		p[n++] = 'a';
	p[n++] = '.';
	reject(p, n, NULL, "nested deeper than 32");
	/* Tuples nest by TUPLE1 without any container op. */
	n = 0;
	p[n++] = 'N';
	for (int i = 0; i < 40; i++)
		p[n++] = 0x85;
	p[n++] = '.';
	reject(p, n, NULL, "nested deeper");
	/* Within the limit it is fine. */
	struct pv_limits lim = {.max_depth = 64};
	pv *v = pv_decode(p, n, &lim, NULL);
	assert_non_null(v);
	assert_int_equal(v->height, 40);
	pv_free(v);
	/* A billion MARKs is bounded too. */
	struct pv_limits few = {.max_elements = 16};
	memset(p, '(', 100);
	p[100] = '.';
	reject(p, 101, &few, "MARK");
}

/* Sharing: a DAG that doubles at every level would encode to 2^n values. */
static void exponential_sharing(void **state)
{
	(void)state;
	uint8_t p[512];
	size_t n = 0;
	p[n++] = 0x80;
	p[n++] = 0x04;
	p[n++] = 'N';
	p[n++] = 0x94; /* memo 0 */
	for (int i = 0; i < 30; i++) {
		p[n++] = 'h';
		p[n++] = (uint8_t)i;
		p[n++] = 'h';
		p[n++] = (uint8_t)i;
		p[n++] = 0x86;          /* (x, x) */
		p[n++] = 0x94;          /* memo i+1 */
		p[n++] = '0';           /* POP: keep it only in the memo */
	}
	p[n++] = 'h';
	p[n++] = 30;
	p[n++] = '.';
	struct pv_limits lim = {.max_depth = 64};
	reject(p, n, &lim, "shared ones are expanded");
}

/* A container added to itself (a recursive list) is refused. */
static void recursive(void **state)
{
	(void)state;
	/* l = []; l.append(l) as Python writes it. */
	reject(B(0x80, 0x02, ']', 'q', 0x00, 'h', 0x00, 'a', '.'), NULL, "shared or recursive");
	/* l = []; t = (l,); l.append(t) */
	reject(B(0x80, 0x02, ']', 'q', 0x00, 'h', 0x00, 0x85, 'a', '.'), NULL, "shared or recursive");
	/* d = {}; d['k'] = d */
	reject(B(0x80, 0x02, '}', 'q', 0x00, 'X', 1, 0, 0, 0, 'k', 'h', 0x00, 's', '.'), NULL,
	       "shared or recursive");
	/* DUP then append into the duplicate. */
	reject(B(']', '2', 'a', '.'), NULL, "shared or recursive");
	/* But a finished container shared twice is fine: [d, d]. */
	pv *v = accept_(B(0x80, 0x02, ']', '(', '}', 'q', 0x01, 'h', 0x01, 'e', '.'));
	assert_ptr_equal(pv_seq_at(v, 0), pv_seq_at(v, 1));
	pv_free(v);
}

static void dict_keys(void **state)
{
	(void)state;
	/* A list as a key is unhashable in Python: refused. */
	reject(B(0x80, 0x02, '}', ']', 'N', 's', '.'), NULL, "dict key");
	/* A repeated key keeps its first place and takes the last value. */
	pv *v = accept_(B(0x80, 0x02, '}', '(', 'K', 1, 'K', 10, 'K', 2, 'K', 20, 'K', 1, 'K', 30,
	                  'u', '.'));
	assert_int_equal(pv_len(v), 2);
	assert_int_equal(v->u.dict.keys[0]->u.i, 1);
	assert_int_equal(v->u.dict.vals[0]->u.i, 30);
	pv_free(v);
	/* Large dicts (hash index) look up like small ones. */
	pv *d = pv_dict();
	for (int i = 0; i < 5000; i++)
		assert_int_equal(pv_dict_set(d, pv_int(i), pv_int(i * 2)), 0);
	assert_int_equal(pv_dict_set(d, pv_int(17), pv_int(-1)), 0);
	assert_int_equal(pv_len(d), 5000);
	pv *k = pv_int(4999);
	assert_int_equal(pv_dict_get(d, k)->u.i, 9998);
	pv_free(k);
	k = pv_int(17);
	assert_int_equal(pv_dict_get(d, k)->u.i, -1);
	pv_free(k);
	pv *big = pv_list();
	assert_int_equal(pv_dict_set(d, big, pv_none()), -1); /* freed by the call */
	pv_free(d);
}

static void floats(void **state)
{
	(void)state;
	pv *v = accept_(B('G', 0x3f, 0xf8, 0, 0, 0, 0, 0, 0, '.'));
	assert_true(v->type == PV_FLOAT && v->u.f == 1.5);
	uint8_t *out;
	size_t n;
	assert_int_equal(pv_encode(v, &out, &n, NULL), 0);
	assert_int_equal(n, 12);
	assert_memory_equal(out + 2, ((const uint8_t[]){'G', 0x3f, 0xf8, 0, 0, 0, 0, 0, 0, '.'}), 10);
	free(out);
	pv_free(v);
	v = accept_(B('F', 'n', 'a', 'n', '\n', '.'));
	assert_true(isnan(v->u.f));
	pv_free(v);
}

static void opcode_names(void **state)
{
	(void)state;
	assert_string_equal(pv_opcode_name(0x93), "STACK_GLOBAL");
	assert_string_equal(pv_opcode_name('h'), "BINGET");
	assert_null(pv_opcode_name(0xff));
}

/* A list put together from its items' encodings is the list's encoding,
 * for every shape of batching (none, one item, one batch, 1000 + 1, ...). */
static void list_of_encodings(void **state)
{
	(void)state;
	static const size_t sizes[] = {0, 1, 2, 999, 1000, 1001, 2001};
	struct pv_error err;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k];
		pv *list = pv_list();
		uint8_t **enc = calloc(n + 1, sizeof(*enc));
		struct pv_encoded *items = calloc(n + 1, sizeof(*items));
		assert_non_null(enc);
		assert_non_null(items);
		for (size_t i = 0; i < n; i++) {
			pv *item = i % 3 == 0 ? sample_tree() : i % 3 == 1 ? pv_int((int64_t)i) : pv_list();
			assert_int_equal(pv_encode(item, &enc[i], &items[i].len, &err), 0);
			items[i].pickle = enc[i];
			assert_int_equal(pv_seq_append(list, item), 0);
		}
		uint8_t *want, *got;
		size_t wlen, glen;
		assert_int_equal(pv_encode(list, &want, &wlen, &err), 0);
		assert_int_equal(pv_encode_list_of(items, n, &got, &glen, &err), 0);
		assert_int_equal(glen, wlen);
		assert_memory_equal(got, want, wlen);
		free(want);
		free(got);
		for (size_t i = 0; i < n; i++)
			free(enc[i]);
		free(enc);
		free(items);
		pv_free(list);
	}
	/* Anything but pv_encode's output is refused, not spliced in. */
	struct pv_encoded bad[] = {{(const uint8_t *)"\x80\x03N", 3}, {(const uint8_t *)"N.", 2}};
	uint8_t *out = NULL;
	size_t len;
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(pv_encode_list_of(&bad[i], 1, &out, &len, &err), -1);
		assert_non_null(strstr(err.message, "not pv_encode's output"));
	}
}

/* A str that CPython would refuse is a malformed pickle (the differential
 * test against Python is in test_pickle_python). */
static void text_rules(void **state)
{
	(void)state;
	/* The registration that once poisoned a reservation: host '\xff'. */
	static const char reg[] = "\x80\x04}(\x8c\x04type\x8c\x03REG\x8c\x04" "data}(\x8c\x04host"
	                          "\x8c\x01\xffuu.";
	struct pv_error err = reject((const uint8_t *)reg, sizeof(reg) - 1, NULL, "not UTF-8");
	assert_int_equal(err.opcode, 0x8c);
	assert_non_null(strstr(err.message, "byte 0xff at offset 0"));
	reject(B(0x80, 4, 0x8c, 2, 0xc0, 0x80, '.'), NULL, "not UTF-8");             /* overlong NUL */
	reject(B(0x80, 4, 0x8c, 4, 0xf4, 0x90, 0x80, 0x80, '.'), NULL, "not UTF-8"); /* > U+10FFFF */
	reject(B(0x80, 4, 0x8c, 2, 0xe2, 0x82, '.'), NULL, "not UTF-8");             /* cut short */
	reject(B('X', 9, 0, 0, 0, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 0x80, '.'), NULL,
	       "offset 8");
	reject(B(0x80, 2, 'U', 1, 0xe9, '.'), NULL, "not ASCII");                      /* Python 2 str */
	reject((const uint8_t *)"S'caf\\xe9'\n.", 12, NULL, "not ASCII");
	/* A lone surrogate passes, as CPython's 'surrogatepass' lets it. */
	pv *v = accept_(B(0x80, 4, 0x8c, 3, 0xed, 0xa0, 0x80, '.'));
	assert_true(v->type == PV_STR && v->u.s.len == 3);
	pv_free(v);
	v = accept_(B('X', 4, 0, 0, 0, 0xf0, 0x9f, 0x98, 0x80, '.'));
	assert_true(pv_is_str(v, "\xf0\x9f\x98\x80"));
	pv_free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(query_vectors),
		cmocka_unit_test(ps_registration_bytes),
		cmocka_unit_test(forbidden_opcodes),
		cmocka_unit_test(truncated),
		cmocka_unit_test(oversized),
		cmocka_unit_test(long_ints),
		cmocka_unit_test(protocol0_text),
		cmocka_unit_test(deep_nesting),
		cmocka_unit_test(exponential_sharing),
		cmocka_unit_test(recursive),
		cmocka_unit_test(dict_keys),
		cmocka_unit_test(floats),
		cmocka_unit_test(opcode_names),
		cmocka_unit_test(list_of_encodings),
		cmocka_unit_test(text_rules),
	};
	return run_tap_tests(tests, NULL, NULL);
}
