/*
 * pickle.h's decoder: a pickle virtual machine that knows only the data
 * opcodes.
 *
 * Python's unpickler keeps a stack of values split by MARKs and a memo.
 * So does this one, with every resource bounded (struct pv_limits): values
 * created, stack and mark depth, memo slots, nesting height and the
 * expanded weight of every container.  Opcodes that can name or call code
 * stop the decode at once with their name and offset; nothing they carry is
 * read.
 */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pickle.h"
#include "pickle_internal.h"

struct dec {
	const uint8_t *p;
	size_t len, pos;
	struct pv_limits lim;
	pv **stack;
	size_t sp, scap;
	size_t *marks; /* stack heights where MARKs were pushed */
	size_t nmarks, mcap;
	pv **memo;
	size_t memo_cap, memo_count;
	size_t created;
	size_t op_pos;
	int op;
	struct pv_error *err;
};

static const struct {
	uint8_t op;
	const char *name;
} opnames[] = {
	{OP_MARK, "MARK"}, {OP_STOP, "STOP"}, {OP_POP, "POP"}, {OP_POP_MARK, "POP_MARK"},
	{OP_DUP, "DUP"}, {OP_FLOAT, "FLOAT"}, {OP_INT, "INT"}, {OP_BININT, "BININT"},
	{OP_BININT1, "BININT1"}, {OP_LONG, "LONG"}, {OP_BININT2, "BININT2"}, {OP_NONE, "NONE"},
	{OP_PERSID, "PERSID"}, {OP_BINPERSID, "BINPERSID"}, {OP_REDUCE, "REDUCE"},
	{OP_STRING, "STRING"}, {OP_BINSTRING, "BINSTRING"}, {OP_SHORT_BINSTRING, "SHORT_BINSTRING"},
	{OP_UNICODE, "UNICODE"}, {OP_BINUNICODE, "BINUNICODE"}, {OP_APPEND, "APPEND"},
	{OP_BUILD, "BUILD"}, {OP_GLOBAL, "GLOBAL"}, {OP_DICT, "DICT"}, {OP_EMPTY_DICT, "EMPTY_DICT"},
	{OP_APPENDS, "APPENDS"}, {OP_GET, "GET"}, {OP_BINGET, "BINGET"}, {OP_INST, "INST"},
	{OP_LONG_BINGET, "LONG_BINGET"}, {OP_LIST, "LIST"}, {OP_EMPTY_LIST, "EMPTY_LIST"},
	{OP_OBJ, "OBJ"}, {OP_PUT, "PUT"}, {OP_BINPUT, "BINPUT"}, {OP_LONG_BINPUT, "LONG_BINPUT"},
	{OP_SETITEM, "SETITEM"}, {OP_TUPLE, "TUPLE"}, {OP_EMPTY_TUPLE, "EMPTY_TUPLE"},
	{OP_SETITEMS, "SETITEMS"}, {OP_BINFLOAT, "BINFLOAT"}, {OP_PROTO, "PROTO"},
	{OP_NEWOBJ, "NEWOBJ"}, {OP_EXT1, "EXT1"}, {OP_EXT2, "EXT2"}, {OP_EXT4, "EXT4"},
	{OP_TUPLE1, "TUPLE1"}, {OP_TUPLE2, "TUPLE2"}, {OP_TUPLE3, "TUPLE3"},
	{OP_NEWTRUE, "NEWTRUE"}, {OP_NEWFALSE, "NEWFALSE"}, {OP_LONG1, "LONG1"}, {OP_LONG4, "LONG4"},
	{OP_BINBYTES, "BINBYTES"}, {OP_SHORT_BINBYTES, "SHORT_BINBYTES"},
	{OP_SHORT_BINUNICODE, "SHORT_BINUNICODE"}, {OP_BINUNICODE8, "BINUNICODE8"},
	{OP_BINBYTES8, "BINBYTES8"}, {OP_EMPTY_SET, "EMPTY_SET"}, {OP_ADDITEMS, "ADDITEMS"},
	{OP_FROZENSET, "FROZENSET"}, {OP_NEWOBJ_EX, "NEWOBJ_EX"}, {OP_STACK_GLOBAL, "STACK_GLOBAL"},
	{OP_MEMOIZE, "MEMOIZE"}, {OP_FRAME, "FRAME"}, {OP_BYTEARRAY8, "BYTEARRAY8"},
	{OP_NEXT_BUFFER, "NEXT_BUFFER"}, {OP_READONLY_BUFFER, "READONLY_BUFFER"},
};

const char *pv_opcode_name(int opcode)
{
	for (size_t i = 0; i < sizeof(opnames) / sizeof(opnames[0]); i++)
		if (opnames[i].op == opcode)
			return opnames[i].name;
	return NULL;
}

/* Fill the error: "<what> opcode NAME (0xNN) at byte N: <why>". */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int fail(struct dec *d, const char *fmt, ...)
{
	if (!d->err)
		return -1;
	char why[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	d->err->offset = d->op_pos;
	d->err->opcode = d->op;
	const char *name = d->op >= 0 ? pv_opcode_name(d->op) : NULL;
	if (d->op < 0)
		snprintf(d->err->message, sizeof(d->err->message), "pickle at byte %zu: %s", d->op_pos,
		         why);
	else
		snprintf(d->err->message, sizeof(d->err->message), "opcode %s (0x%02x) at byte %zu: %s",
		         name ? name : "unknown", (unsigned)d->op, d->op_pos, why);
	return -1;
}

/* ---- reading operands ---- */

static int need(struct dec *d, size_t n)
{
	if (d->len - d->pos < n)
		return fail(d, "truncated: needs %zu more bytes, %zu left", n, d->len - d->pos);
	return 0;
}

static uint64_t le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = n; i-- > 0;)
		v = (v << 8) | p[i];
	return v;
}

static int read_le(struct dec *d, size_t n, uint64_t *out)
{
	if (need(d, n))
		return -1;
	*out = le(d->p + d->pos, n);
	d->pos += n;
	return 0;
}

/* A protocol-0 argument: the bytes up to '\n' (not included). */
static int read_line(struct dec *d, const char **line, size_t *n)
{
	const uint8_t *start = d->p + d->pos;
	const uint8_t *nl = memchr(start, '\n', d->len - d->pos);
	if (!nl)
		return fail(d, "truncated: no end of line");
	*line = (const char *)start;
	*n = (size_t)(nl - start);
	d->pos += *n + 1;
	return 0;
}

/* A decimal int64 of a text opcode (optional sign, digits only). */
static int parse_decimal(struct dec *d, const char *s, size_t n, int64_t *out)
{
	size_t i = 0;
	bool neg = false;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	if (i == n)
		return fail(d, "not an integer");
	uint64_t mag = 0;
	const uint64_t lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return fail(d, "not an integer");
		unsigned digit = (unsigned)(s[i] - '0');
		if (mag > (lim - digit) / 10)
			return fail(d, "integer out of the int64 range");
		mag = mag * 10 + digit;
	}
	*out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
	return 0;
}

/* A memo index written in decimal (PUT, GET). */
static int parse_index(struct dec *d, uint64_t *idx)
{
	const char *line;
	size_t n;
	int64_t v;
	if (read_line(d, &line, &n) || parse_decimal(d, line, n, &v))
		return -1;
	if (v < 0)
		return fail(d, "negative memo index");
	*idx = (uint64_t)v;
	return 0;
}

/* ---- the stack ---- */

/* Counts a new value against the limit, then pushes it (NULL: out of memory). */
static int push_new(struct dec *d, pv *v);

static int push(struct dec *d, pv *v)
{
	if (d->sp == d->scap) {
		if (d->scap >= d->lim.max_elements) {
			pv_free(v);
			return fail(d, "stack deeper than %zu", d->lim.max_elements);
		}
		size_t ncap = d->scap ? d->scap * 2 : 32;
		pv **s = realloc(d->stack, ncap * sizeof(*s));
		if (!s) {
			pv_free(v);
			return fail(d, "out of memory");
		}
		d->stack = s;
		d->scap = ncap;
	}
	d->stack[d->sp++] = v;
	return 0;
}

static int push_new(struct dec *d, pv *v)
{
	if (!v)
		return fail(d, "out of memory");
	if (++d->created > d->lim.max_elements) {
		pv_free(v);
		return fail(d, "more than %zu values", d->lim.max_elements);
	}
	return push(d, v);
}

/* Items above the innermost MARK (Python's current stack frame). */
static size_t frame_base(const struct dec *d)
{
	return d->nmarks ? d->marks[d->nmarks - 1] : 0;
}

static int need_items(struct dec *d, size_t n)
{
	if (d->sp - frame_base(d) < n)
		return fail(d, "stack underflow");
	return 0;
}

static int pop_mark(struct dec *d, size_t *base)
{
	if (!d->nmarks)
		return fail(d, "no MARK to pop to");
	*base = d->marks[--d->nmarks];
	return 0;
}

/* The container on top of the frame may change only when nothing but
 * the stack (once) and the memo hold it: anything else would let data be
 * added to a container already inside another value, which is how a
 * pickle builds a cycle. */
static int check_mutable(struct dec *d, const pv *c, enum pv_type type, const char *what)
{
	if (c->type != type)
		return fail(d, "target is not a %s", what);
	if (c->refs - c->memo_refs != 1)
		return fail(d, "%s is shared or recursive: not supported", what);
	return 0;
}

static int check_child(struct dec *d, const pv *parent, const pv *child)
{
	if (child->height + 1 > d->lim.max_depth)
		return fail(d, "nested deeper than %zu", d->lim.max_depth);
	if (parent->weight + child->weight > d->lim.max_elements ||
	    parent->weight + child->weight < parent->weight)
		return fail(d, "more than %zu values once shared ones are expanded",
		            d->lim.max_elements);
	if (parent->weight_bytes + child->weight_bytes > d->lim.max_expanded ||
	    parent->weight_bytes + child->weight_bytes < parent->weight_bytes)
		return fail(d, "more than %zu bytes of text once shared values are expanded",
		            d->lim.max_expanded);
	return 0;
}

/* Move stack[from..sp) into seq (a fresh or mutable list/tuple). */
static int take_into_seq(struct dec *d, pv *seq, size_t from)
{
	if (pv_seq_reserve(seq, d->sp - from) != 0)
		return fail(d, "out of memory");
	for (size_t i = from; i < d->sp; i++) {
		if (check_child(d, seq, d->stack[i]))
			return -1; /* the caller frees the stack */
		pv *item = d->stack[i];
		d->stack[i] = NULL;
		if (pv_seq_append(seq, item) != 0)
			return fail(d, "out of memory");
	}
	d->sp = from;
	return 0;
}

/* Move the pairs stack[from..sp) into dict. */
static int take_into_dict(struct dec *d, pv *dict, size_t from)
{
	if ((d->sp - from) % 2)
		return fail(d, "odd number of items for a dict");
	for (size_t i = from; i < d->sp; i += 2) {
		pv *k = d->stack[i], *v = d->stack[i + 1];
		if (!pv_key_ok(k))
			return fail(d, "unsupported dict key (a list, dict, or too large)");
		if (check_child(d, dict, k) || check_child(d, dict, v))
			return -1;
		d->stack[i] = d->stack[i + 1] = NULL;
		if (pv_dict_set(dict, k, v) != 0)
			return fail(d, "out of memory");
	}
	d->sp = from;
	return 0;
}

/* TUPLE, TUPLE1-3, LIST, DICT: a new container from the top n items. */
static int build_from(struct dec *d, enum pv_type type, size_t from)
{
	pv *c = type == PV_DICT ? pv_dict() : type == PV_LIST ? pv_list() : pv_tuple();
	if (!c)
		return fail(d, "out of memory");
	if (++d->created > d->lim.max_elements) {
		pv_free(c);
		return fail(d, "more than %zu values", d->lim.max_elements);
	}
	int rc = type == PV_DICT ? take_into_dict(d, c, from) : take_into_seq(d, c, from);
	if (rc) {
		pv_free(c);
		return -1;
	}
	return push(d, c);
}

/* ---- the memo ---- */

static int memo_put(struct dec *d, uint64_t idx)
{
	if (need_items(d, 1))
		return -1;
	if (idx >= d->lim.max_memo)
		return fail(d, "memo index %llu beyond the limit %zu", (unsigned long long)idx,
		            d->lim.max_memo);
	if (idx >= d->memo_cap) {
		size_t ncap = d->memo_cap ? d->memo_cap : 64;
		while (ncap <= idx)
			ncap *= 2;
		pv **m = realloc(d->memo, ncap * sizeof(*m));
		if (!m)
			return fail(d, "out of memory");
		memset(m + d->memo_cap, 0, (ncap - d->memo_cap) * sizeof(*m));
		d->memo = m;
		d->memo_cap = ncap;
	}
	pv *v = d->stack[d->sp - 1];
	pv *old = d->memo[idx];
	if (old) {
		old->memo_refs--;
		pv_free(old);
	} else {
		d->memo_count++;
	}
	v->refs++;
	v->memo_refs++;
	d->memo[idx] = v;
	return 0;
}

static int memo_get(struct dec *d, uint64_t idx)
{
	if (idx >= d->memo_cap || !d->memo[idx])
		return fail(d, "memo index %llu is not defined", (unsigned long long)idx);
	return push(d, pv_ref(d->memo[idx]));
}

/* ---- text payloads ---- */

/*
 * The text a str may hold: what CPython's unpickler accepts, so that a peer
 * never gets back a str it cannot load.  SHORT_BINUNICODE, BINUNICODE and
 * BINUNICODE8 are decoded there as UTF-8 with the 'surrogatepass' handler
 * (UNICODE's raw-unicode-escape is transcoded here, always valid): strict UTF-8 (no overlong form, nothing
 * beyond U+10FFFF, no stray or missing continuation byte), except that an
 * encoded surrogate (ED A0 80 to ED BF BF) is a lone surrogate, not an
 * error.  Returns the offset of the first bad sequence, or n.
 */
static size_t utf8_bad_at(const uint8_t *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		/* ASCII eight bytes at a time: a registration is mostly ASCII. */
		if (n - i >= 8) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			if ((w & 0x8080808080808080ULL) == 0) {
				i += 8;
				continue;
			}
		}
		uint8_t c = s[i], lo = 0x80, hi = 0xbf; /* the second byte's range */
		size_t k;
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			k = 2;
		} else if (c >= 0xe0 && c <= 0xef) {
			k = 3;
			lo = c == 0xe0 ? 0xa0 : 0x80; /* E0 80-9F: overlong */
		} else if (c >= 0xf0 && c <= 0xf4) {
			k = 4;
			lo = c == 0xf0 ? 0x90 : 0x80; /* F0 80-8F: overlong */
			hi = c == 0xf4 ? 0x8f : 0xbf; /* F4 90-: beyond U+10FFFF */
		} else {
			return i; /* a continuation byte, C0/C1 (overlong), F5-FF */
		}
		if (n - i < k || s[i + 1] < lo || s[i + 1] > hi)
			return i;
		for (size_t j = 2; j < k; j++)
			if ((s[i + j] & 0xc0) != 0x80)
				return i;
		i += k;
	}
	return n;
}

/* The Python 2 str opcodes (STRING, BINSTRING, SHORT_BINSTRING) are
 * decoded by CPython with the unpickler's default encoding, ASCII. */
static size_t ascii_bad_at(const uint8_t *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] >= 0x80)
			return i;
	return n;
}

/* A str's text as CPython would load it (the opcode says which rule), or
 * a failed decode: such a pickle is malformed, as it is to CPython. */
static int check_text(struct dec *d, const char *s, size_t n)
{
	bool py2 = d->op == OP_STRING || d->op == OP_BINSTRING || d->op == OP_SHORT_BINSTRING;
	size_t bad = py2 ? ascii_bad_at((const uint8_t *)s, n) : utf8_bad_at((const uint8_t *)s, n);
	if (bad == n)
		return 0;
	return fail(d, "byte 0x%02x at offset %zu of the str is not %s, which Python refuses",
	            (unsigned)(uint8_t)s[bad], bad, py2 ? "ASCII (a Python 2 str)" : "UTF-8");
}

/* Append code point cp as UTF-8 (surrogates too, as Python's
 * 'surrogatepass' would: the text is carried, not validated). */
static size_t put_utf8(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* UNICODE: Python's raw-unicode-escape (Latin-1 bytes, \uXXXX, \UXXXXXXXX). */
static int load_unicode(struct dec *d)
{
	const char *s;
	size_t n;
	if (read_line(d, &s, &n))
		return -1;
	if (n > SIZE_MAX / 4)
		return fail(d, "too long");
	char *out = malloc(n * 4 + 1);
	if (!out)
		return fail(d, "out of memory");
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		if (s[i] == '\\' && i + 1 < n && (s[i + 1] == 'u' || s[i + 1] == 'U')) {
			size_t digits = s[i + 1] == 'u' ? 4 : 8;
			uint32_t cp = 0;
			if (n - i - 2 < digits) {
				free(out);
				return fail(d, "truncated \\u escape");
			}
			for (size_t k = 0; k < digits; k++) {
				int h = hexval(s[i + 2 + k]);
				if (h < 0) {
					free(out);
					return fail(d, "bad \\u escape");
				}
				cp = cp << 4 | (uint32_t)h;
			}
			if (cp > 0x10ffff) {
				free(out);
				return fail(d, "code point beyond U+10FFFF");
			}
			o += put_utf8(out + o, cp);
			i += 2 + digits;
		} else {
			o += put_utf8(out + o, (uint8_t)s[i]);
			i++;
		}
	}
	int rc = push_new(d, pv_strn(out, o));
	free(out);
	return rc;
}

/* STRING: a Python 2 str literal, 'quoted' with repr's escapes. */
static int load_string(struct dec *d)
{
	const char *s;
	size_t n;
	if (read_line(d, &s, &n))
		return -1;
	if (n < 2 || (s[0] != '\'' && s[0] != '"') || s[n - 1] != s[0])
		return fail(d, "the string is not quoted");
	s++;
	n -= 2;
	char *out = malloc(n + 1);
	if (!out)
		return fail(d, "out of memory");
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\\') {
			out[o++] = s[i];
			continue;
		}
		if (++i == n) {
			free(out);
			return fail(d, "trailing backslash");
		}
		char c = s[i];
		switch (c) {
		case 'n': out[o++] = '\n'; break;
		case 'r': out[o++] = '\r'; break;
		case 't': out[o++] = '\t'; break;
		case 'a': out[o++] = '\a'; break;
		case 'b': out[o++] = '\b'; break;
		case 'f': out[o++] = '\f'; break;
		case 'v': out[o++] = '\v'; break;
		case '\\': case '\'': case '"': out[o++] = c; break;
		case 'x': {
			if (n - i < 3 || hexval(s[i + 1]) < 0 || hexval(s[i + 2]) < 0) {
				free(out);
				return fail(d, "bad \\x escape");
			}
			out[o++] = (char)(hexval(s[i + 1]) << 4 | hexval(s[i + 2]));
			i += 2;
			break;
		}
		default:
			if (c >= '0' && c <= '7') {
				unsigned v = 0;
				size_t k = 0;
				while (k < 3 && i + k < n && s[i + k] >= '0' && s[i + k] <= '7')
					v = v * 8 + (unsigned)(s[i + k++] - '0');
				out[o++] = (char)(v & 0xff);
				i += k - 1;
			} else {
				/* Unknown escapes stay as written, as in Python 2. */
				out[o++] = '\\';
				out[o++] = c;
			}
		}
	}
	if (check_text(d, out, o) != 0) {
		free(out);
		return -1;
	}
	int rc = push_new(d, pv_strn(out, o));
	free(out);
	return rc;
}

/* A counted payload (str or bytes), its length already read. */
static int load_counted(struct dec *d, enum pv_type type, uint64_t n)
{
	if (n > d->len - d->pos)
		return fail(d, "truncated: needs %llu bytes, %zu left", (unsigned long long)n,
		            d->len - d->pos);
	const char *s = (const char *)d->p + d->pos;
	d->pos += (size_t)n;
	if (type == PV_STR && check_text(d, s, (size_t)n) != 0)
		return -1;
	return push_new(d, type == PV_STR ? pv_strn(s, (size_t)n) : pv_bytes(s, (size_t)n));
}

/* LONG1/LONG4: n bytes of little-endian two's complement, within int64. */
static int load_long_bytes(struct dec *d, uint64_t n)
{
	if (n > d->len - d->pos)
		return fail(d, "truncated: needs %llu bytes, %zu left", (unsigned long long)n,
		            d->len - d->pos);
	const uint8_t *b = d->p + d->pos;
	d->pos += (size_t)n;
	if (n == 0)
		return push_new(d, pv_int(0));
	uint8_t sign = b[n - 1] & 0x80 ? 0xff : 0x00;
	size_t keep = n < 8 ? (size_t)n : 8;
	for (uint64_t i = 8; i < n; i++)
		if (b[i] != sign)
			return fail(d, "integer out of the int64 range");
	/* The int64's own sign bit must agree with the number's sign. */
	if (n > 8 && ((b[7] & 0x80) ? 0xff : 0x00) != sign)
		return fail(d, "integer out of the int64 range");
	uint64_t u = le(b, keep);
	if (keep < 8 && sign)
		u |= ~(uint64_t)0 << (keep * 8);
	return push_new(d, pv_int((int64_t)u));
}

static int load_text_int(struct dec *d, bool is_long)
{
	const char *s;
	size_t n;
	if (read_line(d, &s, &n))
		return -1;
	if (!is_long && n == 2 && s[0] == '0' && (s[1] == '0' || s[1] == '1'))
		return push_new(d, pv_bool(s[1] == '1')); /* I00 / I01 */
	if (is_long && n && s[n - 1] == 'L')
		n--;
	int64_t v;
	if (parse_decimal(d, s, n, &v))
		return -1;
	return push_new(d, pv_int(v));
}

static int load_text_float(struct dec *d)
{
	const char *s;
	size_t n;
	char buf[64];
	if (read_line(d, &s, &n))
		return -1;
	if (n == 0 || n >= sizeof(buf))
		return fail(d, "not a float");
	memcpy(buf, s, n);
	buf[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789+-.eEinfatyINFATY", buf[i]))
			return fail(d, "not a float");
	char *end;
	errno = 0;
	double f = strtod(buf, &end);
	if (end != buf + n)
		return fail(d, "not a float");
	return push_new(d, pv_float(f));
}

static int load_binfloat(struct dec *d)
{
	if (need(d, 8))
		return -1;
	uint64_t bits = 0;
	for (int i = 0; i < 8; i++)
		bits = bits << 8 | d->p[d->pos + (size_t)i];
	d->pos += 8;
	double f;
	memcpy(&f, &bits, sizeof(f));
	return push_new(d, pv_float(f));
}

/* ---- opcodes ---- */

static int forbidden(struct dec *d)
{
	return fail(d, "forbidden: it can name or call code");
}

/* One opcode.  Returns 0 to go on, 1 at STOP, -1 on error. */
static int step(struct dec *d)
{
	uint64_t n;
	size_t base = 0;
	d->op_pos = d->pos;
	d->op = -1;
	if (d->pos >= d->len)
		return fail(d, "truncated: no STOP");
	d->op = d->p[d->pos++];

	switch (d->op) {
	/* Code: never. */
	case OP_GLOBAL: case OP_STACK_GLOBAL: case OP_REDUCE: case OP_BUILD: case OP_INST:
	case OP_OBJ: case OP_NEWOBJ: case OP_NEWOBJ_EX: case OP_PERSID: case OP_BINPERSID:
	case OP_EXT1: case OP_EXT2: case OP_EXT4:
		return forbidden(d);
	case OP_EMPTY_SET: case OP_ADDITEMS: case OP_FROZENSET:
		return fail(d, "sets are not supported");
	case OP_NEXT_BUFFER: case OP_READONLY_BUFFER:
		return fail(d, "out-of-band buffers are not supported");

	case OP_PROTO:
		if (read_le(d, 1, &n))
			return -1;
		if (n > 5)
			return fail(d, "unsupported protocol %llu", (unsigned long long)n);
		return 0;
	case OP_FRAME:
		/* A hint for buffered readers; the whole pickle is in memory. */
		if (read_le(d, 8, &n))
			return -1;
		if (n > d->len - d->pos)
			return fail(d, "truncated: frame of %llu bytes, %zu left",
			            (unsigned long long)n, d->len - d->pos);
		return 0;
	case OP_STOP:
		if (d->nmarks)
			return fail(d, "MARK left open");
		if (d->sp != 1)
			return fail(d, "%zu values on the stack, expected 1", d->sp);
		return 1;

	case OP_MARK:
		if (d->nmarks == d->mcap) {
			if (d->mcap >= d->lim.max_elements)
				return fail(d, "more than %zu MARKs", d->lim.max_elements);
			size_t ncap = d->mcap ? d->mcap * 2 : 16;
			size_t *m = realloc(d->marks, ncap * sizeof(*m));
			if (!m)
				return fail(d, "out of memory");
			d->marks = m;
			d->mcap = ncap;
		}
		d->marks[d->nmarks++] = d->sp;
		return 0;
	case OP_POP:
		if (d->sp > frame_base(d)) {
			pv_free(d->stack[--d->sp]);
			return 0;
		}
		return pop_mark(d, &base);
	case OP_POP_MARK:
		if (pop_mark(d, &base))
			return -1;
		while (d->sp > base)
			pv_free(d->stack[--d->sp]);
		return 0;
	case OP_DUP:
		if (need_items(d, 1))
			return -1;
		return push(d, pv_ref(d->stack[d->sp - 1]));

	/* Scalars. */
	case OP_NONE:
		return push_new(d, pv_none());
	case OP_NEWTRUE:
		return push_new(d, pv_bool(true));
	case OP_NEWFALSE:
		return push_new(d, pv_bool(false));
	case OP_BININT:
		if (read_le(d, 4, &n))
			return -1;
		return push_new(d, pv_int((int32_t)(uint32_t)n));
	case OP_BININT1:
		if (read_le(d, 1, &n))
			return -1;
		return push_new(d, pv_int((int64_t)n));
	case OP_BININT2:
		if (read_le(d, 2, &n))
			return -1;
		return push_new(d, pv_int((int64_t)n));
	case OP_INT:
		return load_text_int(d, false);
	case OP_LONG:
		return load_text_int(d, true);
	case OP_LONG1:
		if (read_le(d, 1, &n))
			return -1;
		return load_long_bytes(d, n);
	case OP_LONG4:
		if (read_le(d, 4, &n))
			return -1;
		if ((int32_t)(uint32_t)n < 0)
			return fail(d, "negative byte count");
		return load_long_bytes(d, n);
	case OP_FLOAT:
		return load_text_float(d);
	case OP_BINFLOAT:
		return load_binfloat(d);

	/* Text and bytes. */
	case OP_SHORT_BINUNICODE:
		return read_le(d, 1, &n) ? -1 : load_counted(d, PV_STR, n);
	case OP_BINUNICODE:
		return read_le(d, 4, &n) ? -1 : load_counted(d, PV_STR, n);
	case OP_BINUNICODE8:
		return read_le(d, 8, &n) ? -1 : load_counted(d, PV_STR, n);
	case OP_UNICODE:
		return load_unicode(d);
	case OP_STRING:
		return load_string(d);
	case OP_SHORT_BINSTRING: /* Python 2 str: loaded as str, as Python 3 does */
		return read_le(d, 1, &n) ? -1 : load_counted(d, PV_STR, n);
	case OP_BINSTRING:
		if (read_le(d, 4, &n))
			return -1;
		if ((int32_t)(uint32_t)n < 0)
			return fail(d, "negative byte count");
		return load_counted(d, PV_STR, n);
	case OP_SHORT_BINBYTES:
		return read_le(d, 1, &n) ? -1 : load_counted(d, PV_BYTES, n);
	case OP_BINBYTES:
		return read_le(d, 4, &n) ? -1 : load_counted(d, PV_BYTES, n);
	case OP_BINBYTES8:
	case OP_BYTEARRAY8:
		return read_le(d, 8, &n) ? -1 : load_counted(d, PV_BYTES, n);

	/* Containers. */
	case OP_EMPTY_DICT:
		return push_new(d, pv_dict());
	case OP_EMPTY_LIST:
		return push_new(d, pv_list());
	case OP_EMPTY_TUPLE:
		return push_new(d, pv_tuple());
	case OP_TUPLE1:
	case OP_TUPLE2:
	case OP_TUPLE3: {
		size_t k = (size_t)(d->op - OP_TUPLE1 + 1);
		if (need_items(d, k))
			return -1;
		return build_from(d, PV_TUPLE, d->sp - k);
	}
	case OP_TUPLE:
	case OP_LIST:
	case OP_DICT:
		if (pop_mark(d, &base))
			return -1;
		return build_from(d, d->op == OP_TUPLE ? PV_TUPLE : d->op == OP_LIST ? PV_LIST : PV_DICT,
		                  base);
	case OP_APPEND:
		if (need_items(d, 2) || check_mutable(d, d->stack[d->sp - 2], PV_LIST, "list"))
			return -1;
		return take_into_seq(d, d->stack[d->sp - 2], d->sp - 1);
	case OP_APPENDS:
		if (pop_mark(d, &base))
			return -1;
		if (base == 0 || base <= frame_base(d))
			return fail(d, "stack underflow");
		if (check_mutable(d, d->stack[base - 1], PV_LIST, "list"))
			return -1;
		return take_into_seq(d, d->stack[base - 1], base);
	case OP_SETITEM:
		if (need_items(d, 3) || check_mutable(d, d->stack[d->sp - 3], PV_DICT, "dict"))
			return -1;
		return take_into_dict(d, d->stack[d->sp - 3], d->sp - 2);
	case OP_SETITEMS:
		if (pop_mark(d, &base))
			return -1;
		if (base == 0 || base <= frame_base(d))
			return fail(d, "stack underflow");
		if (check_mutable(d, d->stack[base - 1], PV_DICT, "dict"))
			return -1;
		return take_into_dict(d, d->stack[base - 1], base);

	/* Memo. */
	case OP_PUT:
		return parse_index(d, &n) ? -1 : memo_put(d, n);
	case OP_BINPUT:
		return read_le(d, 1, &n) ? -1 : memo_put(d, n);
	case OP_LONG_BINPUT:
		return read_le(d, 4, &n) ? -1 : memo_put(d, n);
	case OP_MEMOIZE:
		return memo_put(d, d->memo_count);
	case OP_GET:
		return parse_index(d, &n) ? -1 : memo_get(d, n);
	case OP_BINGET:
		return read_le(d, 1, &n) ? -1 : memo_get(d, n);
	case OP_LONG_BINGET:
		return read_le(d, 4, &n) ? -1 : memo_get(d, n);
	}
	return fail(d, "unknown opcode");
}

static void limits_or_defaults(struct pv_limits *out, const struct pv_limits *in)
{
	static const struct pv_limits zero;
	if (!in)
		in = &zero;
	out->max_input = in->max_input ? in->max_input : PV_DEFAULT_MAX_INPUT;
	out->max_depth = in->max_depth ? in->max_depth : PV_DEFAULT_MAX_DEPTH;
	out->max_elements = in->max_elements ? in->max_elements : PV_DEFAULT_MAX_ELEMENTS;
	out->max_expanded = in->max_expanded ? in->max_expanded : PV_DEFAULT_MAX_EXPANDED;
	out->max_memo = in->max_memo ? in->max_memo : PV_DEFAULT_MAX_MEMO;
}

pv *pv_decode(const void *data, size_t len, const struct pv_limits *limits,
              struct pv_error *err)
{
	struct dec d = {.p = data, .len = len, .err = err, .op = -1};
	limits_or_defaults(&d.lim, limits);
	pv *result = NULL;
	int rc = 0;

	if (!data && len)
		rc = fail(&d, "no input");
	else if (len > d.lim.max_input)
		rc = fail(&d, "%zu bytes, more than the limit %zu", len, d.lim.max_input);
	while (rc == 0)
		rc = step(&d);
	if (rc == 1) {
		if (d.pos != d.len) {
			d.op_pos = d.pos;
			d.op = -1;
			fail(&d, "%zu bytes after STOP", d.len - d.pos);
		} else {
			result = d.stack[--d.sp];
		}
	}
	while (d.sp)
		pv_free(d.stack[--d.sp]);
	for (size_t i = 0; i < d.memo_cap; i++) {
		if (d.memo[i]) {
			d.memo[i]->memo_refs--;
			pv_free(d.memo[i]);
		}
	}
	free(d.memo);
	free(d.stack);
	free(d.marks);
	return result;
}
