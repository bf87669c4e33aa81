/*
 * pickle.h's encoder: protocol 3, no memo ops.
 *
 * It makes the same choices as CPython's pickler at protocol 3, so that
 * for a tree without shared subtrees the output equals
 * pickletools.optimize(pickle.dumps(obj, 3)) byte for byte (the tests
 * check this against the machine's Python):
 *   int     BININT1 / BININT2 / BININT, else LONG1
 *   str     BINUNICODE (u32 length)          bytes  SHORT_BINBYTES / BINBYTES
 *   tuple   EMPTY_TUPLE, TUPLE1-3, else MARK ... TUPLE
 *   list    EMPTY_LIST, then APPEND for a single item, else batches of 1000
 *           as MARK ... APPENDS (even a last batch of one: _pickle.c's
 *           batch_list_exact, not pickle.py's _batch_appends)
 *   dict    EMPTY_DICT, then SETITEM for a single pair, else batches of 1000
 *           as MARK ... SETITEMS (batch_dict_exact)
 * Without memo ops a value's encoding is the same wherever it stands, so a
 * list can also be put together from its items' encodings
 * (pv_encode_list_of).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pickle.h"
#include "pickle_internal.h"

#define BATCH 1000 /* pickle.Pickler._BATCHSIZE */

struct enc {
	uint8_t *buf;
	size_t len, cap;
	bool oom;
	const char *why;
};

static void put(struct enc *e, const void *p, size_t n)
{
	if (e->oom)
		return;
	if (e->cap - e->len < n) {
		size_t ncap = e->cap ? e->cap : 256;
		while (ncap - e->len < n) {
			if (ncap > SIZE_MAX / 2) {
				e->oom = true;
				return;
			}
			ncap *= 2;
		}
		uint8_t *b = realloc(e->buf, ncap);
		if (!b) {
			e->oom = true;
			return;
		}
		e->buf = b;
		e->cap = ncap;
	}
	memcpy(e->buf + e->len, p, n);
	e->len += n;
}

static void put1(struct enc *e, uint8_t b) { put(e, &b, 1); }

static void put_le(struct enc *e, uint64_t v, size_t n)
{
	uint8_t b[8];
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(e, b, n);
}

/* Python's encode_long: the shortest little-endian two's complement. */
static void put_long1(struct enc *e, int64_t x)
{
	uint8_t b[9];
	uint64_t u = (uint64_t)x;
	size_t n = 0;
	for (size_t i = 0; i < 8; i++)
		b[i] = (uint8_t)(u >> (8 * i));
	b[8] = x < 0 ? 0xff : 0x00;
	/* Drop high bytes that only repeat the sign. */
	n = 9;
	while (n > 1 && b[n - 1] == (x < 0 ? 0xff : 0x00) &&
	       ((b[n - 2] & 0x80) != 0) == (x < 0))
		n--;
	put1(e, OP_LONG1);
	put1(e, (uint8_t)n);
	put(e, b, n);
}

static void put_int(struct enc *e, int64_t x)
{
	if (x >= 0 && x < 256) {
		put1(e, OP_BININT1);
		put_le(e, (uint64_t)x, 1);
	} else if (x >= 0 && x < 65536) {
		put1(e, OP_BININT2);
		put_le(e, (uint64_t)x, 2);
	} else if (x >= INT32_MIN && x <= INT32_MAX) {
		put1(e, OP_BININT);
		put_le(e, (uint64_t)(uint32_t)(int32_t)x, 4);
	} else {
		put_long1(e, x);
	}
}

static void put_float(struct enc *e, double f)
{
	uint64_t bits;
	uint8_t b[8];
	memcpy(&bits, &f, sizeof(bits));
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(bits >> (56 - 8 * i));
	put1(e, OP_BINFLOAT);
	put(e, b, 8);
}

static int put_value(struct enc *e, const pv *v);

/* Item i of a container (a dict's key and value), or of an array. */
typedef int put_item_fn(struct enc *e, const void *from, size_t i);

static int put_batches(struct enc *e, size_t n, bool is_dict, put_item_fn *put_item,
                       const void *from)
{
	for (size_t start = 0; start < n; start += BATCH) {
		size_t end = n - start > BATCH ? start + BATCH : n;
		if (n > 1)
			put1(e, OP_MARK);
		for (size_t i = start; i < end; i++)
			if (put_item(e, from, i))
				return -1;
		if (n > 1)
			put1(e, is_dict ? OP_SETITEMS : OP_APPENDS);
		else
			put1(e, is_dict ? OP_SETITEM : OP_APPEND);
	}
	return 0;
}

static int put_dict_item(struct enc *e, const void *from, size_t i)
{
	const pv *v = from;
	return put_value(e, v->u.dict.keys[i]) || put_value(e, v->u.dict.vals[i]) ? -1 : 0;
}

static int put_list_item(struct enc *e, const void *from, size_t i)
{
	const pv *v = from;
	return put_value(e, v->u.seq.items[i]);
}

static int put_value(struct enc *e, const pv *v)
{
	if (!v) {
		e->why = "NULL value";
		return -1;
	}
	switch (v->type) {
	case PV_NONE:
		put1(e, OP_NONE);
		return 0;
	case PV_BOOL:
		put1(e, v->u.b ? OP_NEWTRUE : OP_NEWFALSE);
		return 0;
	case PV_INT:
		put_int(e, v->u.i);
		return 0;
	case PV_FLOAT:
		put_float(e, v->u.f);
		return 0;
	case PV_STR:
		if (v->u.s.len > UINT32_MAX) {
			e->why = "str longer than 4 GiB";
			return -1;
		}
		put1(e, OP_BINUNICODE);
		put_le(e, v->u.s.len, 4);
		put(e, v->u.s.data, v->u.s.len);
		return 0;
	case PV_BYTES:
		if (v->u.s.len < 256) {
			put1(e, OP_SHORT_BINBYTES);
			put_le(e, v->u.s.len, 1);
		} else if (v->u.s.len <= UINT32_MAX) {
			put1(e, OP_BINBYTES);
			put_le(e, v->u.s.len, 4);
		} else {
			e->why = "bytes longer than 4 GiB";
			return -1;
		}
		put(e, v->u.s.data, v->u.s.len);
		return 0;
	case PV_TUPLE:
		if (v->u.seq.len == 0) {
			put1(e, OP_EMPTY_TUPLE);
			return 0;
		}
		if (v->u.seq.len > 3)
			put1(e, OP_MARK);
		for (size_t i = 0; i < v->u.seq.len; i++)
			if (put_value(e, v->u.seq.items[i]))
				return -1;
		put1(e, v->u.seq.len > 3 ? OP_TUPLE : (uint8_t)(OP_TUPLE1 + v->u.seq.len - 1));
		return 0;
	case PV_LIST:
		put1(e, OP_EMPTY_LIST);
		return put_batches(e, v->u.seq.len, false, put_list_item, v);
	case PV_DICT:
		put1(e, OP_EMPTY_DICT);
		return put_batches(e, v->u.dict.len, true, put_dict_item, v);
	}
	e->why = "unknown value type";
	return -1;
}

/* PROTO 3, what put_body writes, STOP: into *out, or -1 with *err. */
static int encode(int (*put_body)(struct enc *e, const void *arg), const void *arg, uint8_t **out,
                  size_t *out_len, struct pv_error *err)
{
	struct enc e = {0};
	put1(&e, OP_PROTO);
	put1(&e, 3);
	int rc = put_body(&e, arg);
	put1(&e, OP_STOP);
	if (rc == 0 && e.oom) {
		e.why = "out of memory";
		rc = -1;
	}
	if (rc != 0) {
		if (err) {
			err->offset = 0;
			err->opcode = -1;
			snprintf(err->message, sizeof(err->message), "cannot encode: %s", e.why);
		}
		free(e.buf);
		return -1;
	}
	*out = e.buf;
	*out_len = e.len;
	return 0;
}

static int put_root(struct enc *e, const void *arg)
{
	return put_value(e, arg);
}

int pv_encode(const pv *v, uint8_t **out, size_t *out_len, struct pv_error *err)
{
	return encode(put_root, v, out, out_len, err);
}

/* An encoded item is pv_encode's whole output: PROTO 3, a value, STOP. */
static bool is_encoding(const struct pv_encoded *it)
{
	return it->pickle && it->len >= 4 && it->pickle[0] == OP_PROTO && it->pickle[1] == 3 &&
	       it->pickle[it->len - 1] == OP_STOP;
}

static int put_encoded_item(struct enc *e, const void *from, size_t i)
{
	const struct pv_encoded *it = (const struct pv_encoded *)from + i;
	put(e, it->pickle + 2, it->len - 3);
	return 0;
}

struct encoded_list {
	const struct pv_encoded *items;
	size_t n;
};

static int put_encoded_list(struct enc *e, const void *arg)
{
	const struct encoded_list *l = arg;
	for (size_t i = 0; i < l->n; i++)
		if (!is_encoding(&l->items[i])) {
			e->why = "an item that is not pv_encode's output";
			return -1;
		}
	put1(e, OP_EMPTY_LIST);
	return put_batches(e, l->n, false, put_encoded_item, l->items);
}

int pv_encode_list_of(const struct pv_encoded *items, size_t n, uint8_t **out, size_t *out_len,
                      struct pv_error *err)
{
	struct encoded_list l = {items, n};
	return encode(put_encoded_list, &l, out, out_len, err);
}
