/*
 * A restricted Python pickle codec: the data subset, never code.
 *
 * TensorFlowOnSpark's reservation protocol sends one pickle per frame.  Python's pickle can name and call any
 * importable function, so this decoder implements only the opcodes that
 * build plain data and rejects every opcode that can name or call code
 * (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, NEWOBJ_EX,
 * PERSID, BINPERSID, EXT1/2/4), plus sets and out-of-band buffers, with an
 * error naming the opcode and its byte offset.  A str CPython would refuse
 * (not UTF-8; a Python 2 str that is not ASCII) is an error too: whatever
 * is decoded here can be sent on to a Python peer.
 *
 *   decoder  protocols 0 to 5; memo (PUT/GET/MEMOIZE) supported because a
 *            real ps registration refers back to its host string;
 *            every resource bounded by struct pv_limits.
 *   encoder  protocol 3 with no memo ops, what every Python peer reads.
 *            For a tree without shared subtrees the bytes equal
 *            pickletools.optimize(pickle.dumps(obj, protocol=3)).
 *
 * Known limit: Python 3 writes `bytes` at protocols 0-2 as a call of
 * _codecs.encode (GLOBAL + REDUCE); those pickles are rejected like any
 * other GLOBAL.  Real peers send protocol 3 or later.
 *
 * Values form a tree, or a DAG where the pickle's memo shared a subtree: a
 * value may then be reachable twice.  Cycles are impossible: the decoder
 * refuses to add items to a container that is referenced from anywhere but
 * the stack and the memo (Python's pickler never does that except to build
 * a recursive object).  Values are reference counted, not thread-safe:
 * keep a value within one thread, or share it read-only after decoding.
 */
#ifndef MUSTER_TFOS_WIRE_PICKLE_H
#define MUSTER_TFOS_WIRE_PICKLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pv_type {
	PV_NONE,
	PV_BOOL,
	PV_INT,   /* int64; a pickled int outside int64 is a decode error */
	PV_FLOAT, /* IEEE double */
	PV_STR,   /* UTF-8, NUL-terminated; decoded ones as CPython would load them
	             (a lone surrogate as its 3 bytes, Python's 'surrogatepass') */
	PV_BYTES, /* raw bytes (BYTEARRAY8 decodes to bytes too), NUL-terminated */
	PV_LIST,
	PV_TUPLE,
	PV_DICT   /* insertion order kept; a repeated key keeps its first position */
};

typedef struct pv pv;

/*
 * The value.  Read the fields directly; build and change values only with
 * the functions below (they keep the bookkeeping right).
 */
struct pv {
	enum pv_type type;
	unsigned refs;          /* owners: parents, stack, memo, callers */
	unsigned memo_refs;     /* internal: the decoder's memo slots among refs */
	unsigned height;        /* 0 for scalars, 1 + deepest child for containers */
	size_t weight;          /* values in the expanded tree, this one included */
	size_t weight_bytes;    /* str/bytes payload in the expanded tree */
	union {
		bool b;
		int64_t i;
		double f;
		struct {
			char *data;     /* len bytes + '\0'; may contain NULs */
			size_t len;
		} s;                /* PV_STR and PV_BYTES */
		struct {
			pv **items;
			size_t len, cap;
		} seq;              /* PV_LIST and PV_TUPLE */
		struct {
			pv **keys, **vals;  /* parallel, len entries in insertion order */
			size_t len, cap;
			uint32_t *index;    /* hash index once the dict grows; internal */
			size_t index_cap;
		} dict;
	} u;
};

/* Decoder limits.  Zero in a field means "the default" (PV_DEFAULT_*). */
struct pv_limits {
	size_t max_input;    /* pickle bytes accepted */
	size_t max_depth;    /* container nesting of the result */
	size_t max_elements; /* values, a shared subtree counted at each appearance
	                        (bounds what an encoder or JSON writer will walk) */
	size_t max_expanded; /* str/bytes bytes, counted the same way */
	size_t max_memo;     /* memo slots: indices must be below this */
};
#define PV_DEFAULT_MAX_INPUT    ((size_t)16 << 20)
#define PV_DEFAULT_MAX_DEPTH    ((size_t)32)
#define PV_DEFAULT_MAX_ELEMENTS ((size_t)1 << 20)
#define PV_DEFAULT_MAX_EXPANDED ((size_t)64 << 20)
#define PV_DEFAULT_MAX_MEMO     ((size_t)1 << 20)

/* Why a decode or encode failed.  message names the opcode and the byte
 * offset where it applies, e.g.
 *   "forbidden opcode GLOBAL (0x63) at byte 2: it can name or call code". */
struct pv_error {
	size_t offset;       /* byte offset in the input (decode only) */
	int opcode;          /* the opcode byte, or -1 when none applies */
	char message[200];
};

/*
 * Decode one pickle: `data` must hold exactly one pickle ending with STOP
 * (bytes after STOP are an error).  On success returns the value (caller
 * owns one reference: pv_free) and leaves *err untouched; on failure returns
 * NULL, fills *err (when not NULL) and frees everything it built.
 * `limits` may be NULL for the defaults.
 */
pv *pv_decode(const void *data, size_t len, const struct pv_limits *limits,
              struct pv_error *err);

/*
 * Encode `v` as a protocol 3 pickle without memo ops: PROTO 3, then
 * the value, then STOP.  *out is malloc'd (caller frees), *out_len its size.
 * Fails (returns -1, fills *err) only on an allocation failure or a value
 * that protocol 3 cannot hold this way.  A shared subtree is written out at
 * each appearance.
 */
int pv_encode(const pv *v, uint8_t **out, size_t *out_len, struct pv_error *err);

/* A value as pv_encode wrote it (all of its output, PROTO to STOP). */
struct pv_encoded {
	const uint8_t *pickle;
	size_t len;
};

/*
 * Encode the list of n values given by their encodings: the bytes pv_encode
 * would write for that list, put together without decoding or walking any
 * value.  Fails (-1, *err filled) when out of memory or when an item is not
 * pv_encode's output.
 */
int pv_encode_list_of(const struct pv_encoded *items, size_t n, uint8_t **out, size_t *out_len,
                      struct pv_error *err);

/* Drop one reference; frees the value and its children at zero.  NULL ok. */
void pv_free(pv *v);
/* Take one more reference; returns v.  (Store a subtree beyond its root's
 * life: pv_ref(sub), later pv_free(sub).) */
pv *pv_ref(pv *v);

/* Constructors: a new value with one reference, or NULL when out of memory.
 * Strings are copied. */
pv *pv_none(void);
pv *pv_bool(bool b);
pv *pv_int(int64_t i);
pv *pv_float(double f);
pv *pv_str(const char *s);                        /* NUL-terminated */
pv *pv_strn(const char *s, size_t len);
pv *pv_bytes(const void *data, size_t len);
pv *pv_list(void);
pv *pv_tuple(void);                               /* fill with pv_seq_append */
pv *pv_dict(void);

/* A dict key must be None, bool, int, float, str, bytes, or a tuple of
 * those, and small: at most PV_MAX_KEY_VALUES values and PV_MAX_KEY_BYTES
 * bytes of text in all (so no crafted key makes a lookup slow).  Python
 * allows more; the protocol's keys are short names. */
#define PV_MAX_KEY_VALUES 64
#define PV_MAX_KEY_BYTES 4096

/*
 * Containers.  These take ownership of the items passed (also on failure,
 * when they are freed).  Return 0, or -1 when out of memory, `seq`/`dict`
 * is not a container of that kind, or a key cannot be a dict key (see
 * above).  Do not add a container to itself.
 */
int pv_seq_append(pv *seq, pv *item);             /* list or tuple */
int pv_dict_set(pv *dict, pv *key, pv *value);    /* replaces an equal key's value in place */
int pv_dict_set_str(pv *dict, const char *key, pv *value);

/* Lookups: borrowed pointers, valid while the container lives. */
pv *pv_dict_get(const pv *dict, const pv *key);   /* NULL: not a dict or absent */
pv *pv_dict_get_str(const pv *dict, const char *key);
size_t pv_len(const pv *v);                       /* items of a container, bytes of str/bytes, else 0 */
pv *pv_seq_at(const pv *seq, size_t i);           /* NULL when out of range or not list/tuple */

/* Typed reads: true and *out set when v has that type.  pv_get_str gives
 * the NUL-terminated text (check pv_len for embedded NULs when it matters). */
bool pv_get_int(const pv *v, int64_t *out);
bool pv_get_str(const pv *v, const char **out);
bool pv_is_str(const pv *v, const char *s);       /* str equal to s */

/* Python's == for the types here, except that 1, 1.0 and True are unequal
 * (different types never compare equal).  Containers compare item by item. */
bool pv_equal(const pv *a, const pv *b);

/* Deep copy into a fresh tree with no shared subtrees. */
pv *pv_copy(const pv *v);

/* The opcode's name ("GLOBAL", "BINGET", ...) or NULL when unknown. */
const char *pv_opcode_name(int opcode);

#endif
