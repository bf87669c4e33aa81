/*
 * Framing of the reservation protocol, and its opt-in authentication.
 *
 * Plain frames, byte-compatible with
 * TensorFlowOnSpark:
 *
 *     length (4 bytes, unsigned, big-endian) | payload (length bytes: one pickle)
 *
 * The length does not count its own 4 bytes.  A sender writes header and
 * payload with ONE write (res_frame_build gives one buffer) because the
 * Python receiver decodes the length from its first recv.  A receiver reads
 * exactly 4 bytes, then exactly `length` bytes (res_frame_read_fd never
 * reads past the current frame), and refuses a length above its cap before
 * allocating anything.
 *
 * Authenticated frames (both ends muster, both given the same key file):
 *
 *   1. On connect each side sends a hello as a plain frame, without
 *      waiting for the other's:
 *          payload = "MSTRAUT1" (8 bytes) | nonce (16 random bytes)
 *      The server's nonce is Ns, the client's Nc.  Each side's first
 *      received frame must be the peer's hello (res_auth_accept_hello).
 *      A client that does not speak this (TensorFlowOnSpark) gets a frame
 *      it cannot unpickle and its first request fails the tag check.
 *   2. Every later frame, both directions:
 *          length | pickle | tag (32 bytes)        length = len(pickle) + 32
 *          tag = HMAC-SHA256(key, "muster-reservation-v1" (21 bytes) | Ns | Nc
 *                                 | direction (1 byte: 'C' client to server,
 *                                               'S' server to client)
 *                                 | sequence (8 bytes, big-endian)
 *                                 | pickle)
 *      Sequences count the authenticated frames sent in that direction on
 *      this connection, from 0.  Both nonces bind a tag to one connection
 *      (no replay from another connection, fresh for both ends); the
 *      sequence stops replay, reordering and dropping within it; the
 *      direction stops reflecting a frame back.  Tags compare in constant
 *      time (CRYPTO_memcmp).  Any failure ends the connection: the caller
 *      closes it.
 *
 * The key file: its bytes are the key, less one trailing "\n" or "\r\n";
 * 16 to RES_AUTH_MAX_KEY bytes; refused when others may read or write it.
 */
#ifndef MUSTER_TFOS_WIRE_FRAME_H
#define MUSTER_TFOS_WIRE_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RES_FRAME_HEADER_SIZE 4
/* Default payload cap: far above a 1,024-node QINFO reply (about 200 KiB). */
#define RES_FRAME_DEFAULT_MAX ((size_t)16 << 20)

enum res_frame_status {
	RES_FRAME_MORE = 0,  /* no complete frame yet (or EAGAIN): feed or poll again */
	RES_FRAME_READY,     /* a frame is complete: res_frame_payload, then res_frame_next */
	RES_FRAME_EOF,       /* peer closed between frames */
	RES_FRAME_TRUNCATED, /* peer closed inside a frame */
	RES_FRAME_TOO_BIG,   /* the header announces more than the cap */
	RES_FRAME_ERROR      /* read(2) failed (errno kept) or out of memory */
};

/* Incremental reader: one per connection. */
struct res_frame_reader {
	uint8_t header[RES_FRAME_HEADER_SIZE];
	size_t header_have;
	uint8_t *payload;
	size_t payload_len;   /* announced by the header */
	size_t payload_have;
	size_t max_payload;
	bool ready;
	uint64_t bytes_read;  /* every byte res_frame_read_fd() took from its descriptor */
};

/* max_payload 0 means RES_FRAME_DEFAULT_MAX.  Nothing allocated yet. */
void res_frame_reader_init(struct res_frame_reader *r, size_t max_payload);
void res_frame_reader_free(struct res_frame_reader *r);

/*
 * Feed received bytes.  Consumes at most up to the end of the current frame
 * and says how much in *consumed; feed the rest after res_frame_next.
 * While a frame is READY it consumes nothing and returns READY again.
 * Returns MORE, READY, TOO_BIG or ERROR (out of memory).
 */
enum res_frame_status res_frame_feed(struct res_frame_reader *r, const void *data, size_t len,
                                     size_t *consumed);

/*
 * Read from fd (blocking or non-blocking) until a frame is complete, the
 * read would block (MORE), or the peer closes (EOF / TRUNCATED).  Never
 * reads past the current frame.  EINTR is retried.
 */
enum res_frame_status res_frame_read_fd(struct res_frame_reader *r, int fd);

/* The complete frame's payload (valid until res_frame_next); NULL unless READY. */
const uint8_t *res_frame_payload(const struct res_frame_reader *r, size_t *len);
/* Done with the READY frame: the reader waits for the next header. */
void res_frame_next(struct res_frame_reader *r);

/* A short name for a status, for logs ("frame too big"). */
const char *res_frame_status_str(enum res_frame_status s);

struct res_auth;

/*
 * One frame in one buffer (header, payload and, when auth is not NULL, the
 * tag; auth's send sequence advances).  *out is malloc'd.  Returns 0, or -1
 * when out of memory, the payload exceeds UINT32_MAX, or auth is not ready.
 */
int res_frame_build(struct res_auth *auth, const void *payload, size_t len, uint8_t **out,
                    size_t *out_len);

/* ---- authentication ---- */

#define RES_AUTH_MAGIC "MSTRAUT1"
#define RES_AUTH_MAGIC_SIZE 8
#define RES_AUTH_NONCE_SIZE 16
#define RES_AUTH_HELLO_SIZE (RES_AUTH_MAGIC_SIZE + RES_AUTH_NONCE_SIZE)
#define RES_AUTH_TAG_SIZE 32
#define RES_AUTH_MIN_KEY 16
#define RES_AUTH_MAX_KEY 1024
#define RES_AUTH_CONTEXT "muster-reservation-v1"

/* Per-connection state.  Copyable; holds a copy of the key (wiped by
 * res_auth_clear). */
struct res_auth {
	uint8_t key[RES_AUTH_MAX_KEY];
	size_t key_len;
	uint8_t nonce_server[RES_AUTH_NONCE_SIZE];
	uint8_t nonce_client[RES_AUTH_NONCE_SIZE];
	uint64_t send_seq, recv_seq;
	bool is_server;
	bool have_own_nonce, have_peer_nonce;
};

/*
 * Read a key file into key[RES_AUTH_MAX_KEY] and load libcrypto, which the
 * key's connections need (crypto.h).  0, or -1 with a reason in err ("auth
 * key file /x: readable by others", or res_crypto's).
 */
int res_auth_key_load(const char *path, uint8_t *key, size_t *key_len, char *err, size_t errlen);

/* Start a connection's state.  key_len must be 16..RES_AUTH_MAX_KEY (-1 otherwise). */
int res_auth_init(struct res_auth *a, const uint8_t *key, size_t key_len, bool is_server);

/* This side's hello payload (draws its nonce from RAND_bytes); send it with
 * res_frame_build(NULL, ...).  0, or -1 when the random source fails or
 * libcrypto cannot be loaded. */
int res_auth_hello(struct res_auth *a, uint8_t out[RES_AUTH_HELLO_SIZE]);

/* The peer's hello (the first frame received).  0, or -1 when it is not a hello. */
int res_auth_accept_hello(struct res_auth *a, const void *payload, size_t len);

/* Both hellos exchanged: frames can be sealed and opened. */
bool res_auth_ready(const struct res_auth *a);

/*
 * Check a received authenticated frame's payload (pickle | tag).  On
 * success *pickle_len is the pickle's length (it starts at payload) and the
 * receive sequence advances; returns 0.  Returns -1 when the payload is
 * shorter than a tag, the tag does not match, or auth is not ready.
 */
int res_auth_open(struct res_auth *a, const void *payload, size_t len, size_t *pickle_len);

/* Compute the tag a frame with this pickle, direction and sequence carries
 * (exposed for tests and tools).  0, or -1. */
int res_auth_tag(const struct res_auth *a, char direction, uint64_t seq, const void *pickle,
                 size_t len, uint8_t tag[RES_AUTH_TAG_SIZE]);

/* Wipe the key (explicit_bzero). */
void res_auth_clear(struct res_auth *a);

#endif
