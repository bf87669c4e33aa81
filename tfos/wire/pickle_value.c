/*
 * pickle.h's value tree: constructors, containers, lookups, comparison.
 *
 * Every value carries its expanded weight (values and text bytes it stands
 * for once shared subtrees are written out at each appearance) and its
 * height, so the decoder can enforce its limits in O(1) per insertion.
 */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pickle.h"
#include "pickle_internal.h"

static size_t sat_add(size_t a, size_t b)
{
	return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

static pv *pv_new(enum pv_type type)
{
	pv *v = calloc(1, sizeof(*v));
	if (v) {
		v->type = type;
		v->refs = 1;
		v->weight = 1;
	}
	return v;
}

pv *pv_none(void) { return pv_new(PV_NONE); }

pv *pv_bool(bool b)
{
	pv *v = pv_new(PV_BOOL);
	if (v)
		v->u.b = b;
	return v;
}

pv *pv_int(int64_t i)
{
	pv *v = pv_new(PV_INT);
	if (v)
		v->u.i = i;
	return v;
}

pv *pv_float(double f)
{
	pv *v = pv_new(PV_FLOAT);
	if (v)
		v->u.f = f;
	return v;
}

static pv *pv_text(enum pv_type type, const void *data, size_t len)
{
	if (len == SIZE_MAX)
		return NULL;
	pv *v = pv_new(type);
	if (!v)
		return NULL;
	v->u.s.data = malloc(len + 1);
	if (!v->u.s.data) {
		free(v);
		return NULL;
	}
	if (len)
		memcpy(v->u.s.data, data, len);
	v->u.s.data[len] = '\0';
	v->u.s.len = len;
	v->weight_bytes = len;
	return v;
}

pv *pv_strn(const char *s, size_t len) { return pv_text(PV_STR, s, len); }
pv *pv_str(const char *s) { return s ? pv_text(PV_STR, s, strlen(s)) : NULL; }
pv *pv_bytes(const void *data, size_t len) { return pv_text(PV_BYTES, data, len); }
pv *pv_list(void) { return pv_new(PV_LIST); }
pv *pv_tuple(void) { return pv_new(PV_TUPLE); }
pv *pv_dict(void) { return pv_new(PV_DICT); }

pv *pv_ref(pv *v)
{
	if (v)
		v->refs++;
	return v;
}

/* Free with an explicit work list: a deep (height-limited, but possibly
 * long) structure must not recurse without bound. */
void pv_free(pv *v)
{
	pv **work = NULL;
	size_t n = 0, cap = 0;

	while (v) {
		if (--v->refs == 0) {
			pv **kids[2] = {NULL, NULL};
			size_t nk = 0;
			switch (v->type) {
			case PV_STR:
			case PV_BYTES:
				free(v->u.s.data);
				break;
			case PV_LIST:
			case PV_TUPLE:
				kids[0] = v->u.seq.items;
				nk = v->u.seq.len;
				break;
			case PV_DICT:
				kids[0] = v->u.dict.keys;
				kids[1] = v->u.dict.vals;
				nk = v->u.dict.len;
				free(v->u.dict.index);
				break;
			default:
				break;
			}
			for (int k = 0; k < 2 && kids[k]; k++) {
				for (size_t i = 0; i < nk; i++) {
					pv *c = kids[k][i];
					if (c->refs > 1) {
						c->refs--;
						continue;
					}
					if (n == cap) {
						size_t ncap = cap ? cap * 2 : 16;
						pv **w = realloc(work, ncap * sizeof(*w));
						if (!w) {
							/* Out of memory while freeing: recurse
							 * instead (bounded by the height limit). */
							pv_free(c);
							continue;
						}
						work = w;
						cap = ncap;
					}
					work[n++] = c;
				}
				free(kids[k]);
			}
			free(v);
		}
		v = n ? work[--n] : NULL;
	}
	free(work);
}

static void account_child(pv *parent, const pv *child)
{
	parent->weight = sat_add(parent->weight, child->weight);
	parent->weight_bytes = sat_add(parent->weight_bytes, child->weight_bytes);
	if (child->height + 1 > parent->height)
		parent->height = child->height + 1;
}

int pv_seq_reserve(pv *seq, size_t extra)
{
	if (seq->u.seq.len + extra <= seq->u.seq.cap)
		return 0;
	size_t need = seq->u.seq.len + extra;
	size_t ncap = seq->u.seq.cap ? seq->u.seq.cap : 4;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / sizeof(pv *))
			return -1;
		ncap *= 2;
	}
	pv **items = realloc(seq->u.seq.items, ncap * sizeof(*items));
	if (!items)
		return -1;
	seq->u.seq.items = items;
	seq->u.seq.cap = ncap;
	return 0;
}

int pv_seq_append(pv *seq, pv *item)
{
	if (!seq || !item || (seq->type != PV_LIST && seq->type != PV_TUPLE) ||
	    pv_seq_reserve(seq, 1) != 0) {
		pv_free(item);
		return -1;
	}
	seq->u.seq.items[seq->u.seq.len++] = item;
	account_child(seq, item);
	return 0;
}

/* ---- dict keys: hashing and the index ---- */

static uint64_t mix(uint64_t h, uint64_t x)
{
	h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

static uint64_t hash_bytes(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)p[i]) * 1099511628211ULL;
	return h;
}

/* Keys are checked by pv_key_ok first: bounded size, no lists or dicts. */
static uint64_t key_hash(const pv *k)
{
	uint64_t h = (uint64_t)k->type * 0x100000001b3ULL;
	switch (k->type) {
	case PV_BOOL:
		return mix(h, k->u.b);
	case PV_INT:
		return mix(h, (uint64_t)k->u.i);
	case PV_FLOAT: {
		double f = k->u.f == 0.0 ? 0.0 : k->u.f; /* -0.0 == 0.0 */
		uint64_t bits;
		if (isnan(f))
			return mix(h, 0x7ff8);
		memcpy(&bits, &f, sizeof(bits));
		return mix(h, bits);
	}
	case PV_STR:
	case PV_BYTES:
		return mix(h, hash_bytes(k->u.s.data, k->u.s.len));
	case PV_TUPLE:
		for (size_t i = 0; i < k->u.seq.len; i++)
			h = mix(h, key_hash(k->u.seq.items[i]));
		return mix(h, k->u.seq.len);
	default:
		return h;
	}
}

static bool key_kinds_ok(const pv *k)
{
	switch (k->type) {
	case PV_LIST:
	case PV_DICT:
		return false;
	case PV_TUPLE:
		for (size_t i = 0; i < k->u.seq.len; i++)
			if (!key_kinds_ok(k->u.seq.items[i]))
				return false;
		return true;
	default:
		return true;
	}
}

bool pv_key_ok(const pv *k)
{
	/* Weight first: it bounds the walk key_kinds_ok does. */
	return k->weight <= PV_MAX_KEY_VALUES && k->weight_bytes <= PV_MAX_KEY_BYTES &&
	       key_kinds_ok(k);
}

/* Dicts with at least this many entries get a hash index. */
#define INDEX_FROM 8

static int index_rebuild(pv *d, size_t cap)
{
	uint32_t *idx = calloc(cap, sizeof(*idx));
	if (!idx)
		return -1;
	for (size_t i = 0; i < d->u.dict.len; i++) {
		size_t slot = key_hash(d->u.dict.keys[i]) & (cap - 1);
		while (idx[slot])
			slot = (slot + 1) & (cap - 1);
		idx[slot] = (uint32_t)(i + 1);
	}
	free(d->u.dict.index);
	d->u.dict.index = idx;
	d->u.dict.index_cap = cap;
	return 0;
}

static bool dict_find(const pv *d, const pv *key, uint64_t h, size_t *pos)
{
	if (d->u.dict.index) {
		size_t mask = d->u.dict.index_cap - 1;
		for (size_t slot = h & mask; d->u.dict.index[slot]; slot = (slot + 1) & mask) {
			size_t i = d->u.dict.index[slot] - 1;
			if (pv_equal(d->u.dict.keys[i], key)) {
				*pos = i;
				return true;
			}
		}
		return false;
	}
	for (size_t i = 0; i < d->u.dict.len; i++) {
		if (pv_equal(d->u.dict.keys[i], key)) {
			*pos = i;
			return true;
		}
	}
	return false;
}

int pv_dict_set(pv *dict, pv *key, pv *value)
{
	if (!dict || !key || !value || dict->type != PV_DICT || !pv_key_ok(key))
		goto fail;
	uint64_t h = key_hash(key);
	size_t pos;
	if (dict_find(dict, key, h, &pos)) {
		/* Python keeps the first key object and its position. */
		pv *old = dict->u.dict.vals[pos];
		dict->weight -= old->weight > dict->weight ? dict->weight : old->weight;
		dict->weight_bytes -= old->weight_bytes > dict->weight_bytes ? dict->weight_bytes
		                                                             : old->weight_bytes;
		dict->u.dict.vals[pos] = value;
		account_child(dict, value);
		pv_free(old);
		pv_free(key);
		return 0;
	}
	if (dict->u.dict.len >= UINT32_MAX - 1)
		goto fail;
	if (dict->u.dict.len == dict->u.dict.cap) {
		size_t ncap = dict->u.dict.cap ? dict->u.dict.cap * 2 : 4;
		if (ncap > SIZE_MAX / sizeof(pv *))
			goto fail;
		pv **keys = realloc(dict->u.dict.keys, ncap * sizeof(*keys));
		if (!keys)
			goto fail;
		dict->u.dict.keys = keys;
		pv **vals = realloc(dict->u.dict.vals, ncap * sizeof(*vals));
		if (!vals)
			goto fail;
		dict->u.dict.vals = vals;
		dict->u.dict.cap = ncap;
	}
	size_t n = dict->u.dict.len + 1;
	if (n >= INDEX_FROM && n * 2 > dict->u.dict.index_cap) {
		size_t cap = dict->u.dict.index_cap ? dict->u.dict.index_cap : 16;
		while (n * 2 > cap)
			cap *= 2;
		/* Without memory for the index, lookups stay linear: still correct. */
		if (index_rebuild(dict, cap) != 0) {
			free(dict->u.dict.index);
			dict->u.dict.index = NULL;
			dict->u.dict.index_cap = 0;
		}
	}
	dict->u.dict.keys[dict->u.dict.len] = key;
	dict->u.dict.vals[dict->u.dict.len] = value;
	dict->u.dict.len = n;
	if (dict->u.dict.index) {
		size_t mask = dict->u.dict.index_cap - 1, slot = h & mask;
		while (dict->u.dict.index[slot])
			slot = (slot + 1) & mask;
		dict->u.dict.index[slot] = (uint32_t)n;
	}
	account_child(dict, key);
	account_child(dict, value);
	return 0;
fail:
	pv_free(key);
	pv_free(value);
	return -1;
}

int pv_dict_set_str(pv *dict, const char *key, pv *value)
{
	pv *k = pv_str(key);
	if (!k) {
		pv_free(value);
		return -1;
	}
	return pv_dict_set(dict, k, value);
}

pv *pv_dict_get(const pv *dict, const pv *key)
{
	size_t pos;
	if (!dict || !key || dict->type != PV_DICT || !pv_key_ok(key))
		return NULL;
	return dict_find(dict, key, key_hash(key), &pos) ? dict->u.dict.vals[pos] : NULL;
}

pv *pv_dict_get_str(const pv *dict, const char *key)
{
	if (!dict || !key || dict->type != PV_DICT)
		return NULL;
	/* A stack key: no allocation for the common lookup. */
	pv k = {.type = PV_STR, .refs = 1, .weight = 1};
	k.u.s.data = (char *)key;
	k.u.s.len = strlen(key);
	k.weight_bytes = k.u.s.len;
	return pv_dict_get(dict, &k);
}

size_t pv_len(const pv *v)
{
	if (!v)
		return 0;
	switch (v->type) {
	case PV_STR:
	case PV_BYTES:
		return v->u.s.len;
	case PV_LIST:
	case PV_TUPLE:
		return v->u.seq.len;
	case PV_DICT:
		return v->u.dict.len;
	default:
		return 0;
	}
}

pv *pv_seq_at(const pv *seq, size_t i)
{
	if (!seq || (seq->type != PV_LIST && seq->type != PV_TUPLE) || i >= seq->u.seq.len)
		return NULL;
	return seq->u.seq.items[i];
}

bool pv_get_int(const pv *v, int64_t *out)
{
	if (!v || v->type != PV_INT)
		return false;
	*out = v->u.i;
	return true;
}

bool pv_get_str(const pv *v, const char **out)
{
	if (!v || v->type != PV_STR)
		return false;
	*out = v->u.s.data;
	return true;
}

bool pv_is_str(const pv *v, const char *s)
{
	return v && s && v->type == PV_STR && v->u.s.len == strlen(s) &&
	       memcmp(v->u.s.data, s, v->u.s.len) == 0;
}

bool pv_equal(const pv *a, const pv *b)
{
	if (a == b)
		return true;
	if (!a || !b || a->type != b->type)
		return false;
	switch (a->type) {
	case PV_NONE:
		return true;
	case PV_BOOL:
		return a->u.b == b->u.b;
	case PV_INT:
		return a->u.i == b->u.i;
	case PV_FLOAT:
		return a->u.f == b->u.f;
	case PV_STR:
	case PV_BYTES:
		return a->u.s.len == b->u.s.len && memcmp(a->u.s.data, b->u.s.data, a->u.s.len) == 0;
	case PV_LIST:
	case PV_TUPLE:
		if (a->u.seq.len != b->u.seq.len)
			return false;
		for (size_t i = 0; i < a->u.seq.len; i++)
			if (!pv_equal(a->u.seq.items[i], b->u.seq.items[i]))
				return false;
		return true;
	case PV_DICT:
		/* Python's dict ==: same keys and values, order ignored. */
		if (a->u.dict.len != b->u.dict.len)
			return false;
		for (size_t i = 0; i < a->u.dict.len; i++) {
			const pv *bv = pv_dict_get(b, a->u.dict.keys[i]);
			if (!bv || !pv_equal(a->u.dict.vals[i], bv))
				return false;
		}
		return true;
	}
	return false;
}

pv *pv_copy(const pv *v)
{
	if (!v)
		return NULL;
	switch (v->type) {
	case PV_NONE:
		return pv_none();
	case PV_BOOL:
		return pv_bool(v->u.b);
	case PV_INT:
		return pv_int(v->u.i);
	case PV_FLOAT:
		return pv_float(v->u.f);
	case PV_STR:
	case PV_BYTES:
		return pv_text(v->type, v->u.s.data, v->u.s.len);
	case PV_LIST:
	case PV_TUPLE: {
		pv *c = pv_new(v->type);
		if (!c || pv_seq_reserve(c, v->u.seq.len) != 0)
			goto fail_seq;
		for (size_t i = 0; i < v->u.seq.len; i++)
			if (pv_seq_append(c, pv_copy(v->u.seq.items[i])) != 0)
				goto fail_seq;
		return c;
	fail_seq:
		pv_free(c);
		return NULL;
	}
	case PV_DICT: {
		pv *c = pv_new(PV_DICT);
		if (!c)
			return NULL;
		for (size_t i = 0; i < v->u.dict.len; i++) {
			if (pv_dict_set(c, pv_copy(v->u.dict.keys[i]), pv_copy(v->u.dict.vals[i])) != 0) {
				pv_free(c);
				return NULL;
			}
		}
		return c;
	}
	}
	return NULL;
}
