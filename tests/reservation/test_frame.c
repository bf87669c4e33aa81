/*
 * Framing (incremental reader, size cap, socket reads that never pass a
 * frame) and the opt-in HMAC authentication: a good tag is accepted; a
 * flipped bit, a replayed or reordered frame, a frame from another
 * connection (other nonce) and a reflected frame are refused.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/test.h"
#include <openssl/evp.h>

#include "frame.h"

static void frame_build_plain(void **state)
{
	(void)state;
	uint8_t *out;
	size_t n;
	assert_int_equal(res_frame_build(NULL, "abc", 3, &out, &n), 0);
	assert_int_equal(n, 7);
	assert_memory_equal(out, "\0\0\0\3abc", 7);
	free(out);
}

/* Byte by byte, then two frames in one buffer, then an empty frame. */
static void reader_feed(void **state)
{
	(void)state;
	static const uint8_t wire[] = {0, 0, 0, 2, 'h', 'i', 0, 0, 0, 3, 'a', 'b', 'c', 0, 0, 0, 0};
	struct res_frame_reader r;
	res_frame_reader_init(&r, 0);
	size_t used, len;
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(res_frame_feed(&r, wire + i, 1, &used), RES_FRAME_MORE);
		assert_int_equal(used, 1);
	}
	assert_int_equal(res_frame_feed(&r, wire + 5, 1, &used), RES_FRAME_READY);
	const uint8_t *p = res_frame_payload(&r, &len);
	assert_int_equal(len, 2);
	assert_memory_equal(p, "hi", 2);
	/* READY holds until next: nothing more is consumed. */
	assert_int_equal(res_frame_feed(&r, wire + 6, 7, &used), RES_FRAME_READY);
	assert_int_equal(used, 0);
	res_frame_next(&r);
	assert_null(res_frame_payload(&r, &len));

	assert_int_equal(res_frame_feed(&r, wire + 6, sizeof(wire) - 6, &used), RES_FRAME_READY);
	assert_int_equal(used, 7); /* stops at the end of the frame */
	p = res_frame_payload(&r, &len);
	assert_int_equal(len, 3);
	assert_memory_equal(p, "abc", 3);
	res_frame_next(&r);
	assert_int_equal(res_frame_feed(&r, wire + 13, 4, &used), RES_FRAME_READY);
	res_frame_payload(&r, &len);
	assert_int_equal(len, 0);
	res_frame_reader_free(&r);
}

static void reader_cap(void **state)
{
	(void)state;
	struct res_frame_reader r;
	res_frame_reader_init(&r, 16);
	size_t used;
	static const uint8_t big[] = {0, 0, 0, 17};
	assert_int_equal(res_frame_feed(&r, big, 4, &used), RES_FRAME_TOO_BIG);
	res_frame_reader_free(&r);
	/* The default cap stops a 4 GiB claim before any allocation. */
	res_frame_reader_init(&r, 0);
	static const uint8_t huge[] = {0xff, 0xff, 0xff, 0xff};
	assert_int_equal(res_frame_feed(&r, huge, 4, &used), RES_FRAME_TOO_BIG);
	assert_null(r.payload);
	res_frame_reader_free(&r);
	assert_string_equal(res_frame_status_str(RES_FRAME_TOO_BIG), "frame too big");
}

/* Non-blocking socket: a half frame is MORE; the next frame stays unread. */
static void reader_fd(void **state)
{
	(void)state;
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);
	struct res_frame_reader r;
	res_frame_reader_init(&r, 0);
	assert_int_equal(res_frame_read_fd(&r, sv[0]), RES_FRAME_MORE);
	assert_int_equal(write(sv[1], "\0\0\0\5he", 6), 6);
	assert_int_equal(res_frame_read_fd(&r, sv[0]), RES_FRAME_MORE);
	assert_int_equal(write(sv[1], "llo\0\0\0\2ok", 9), 9);
	assert_int_equal(res_frame_read_fd(&r, sv[0]), RES_FRAME_READY);
	size_t len;
	assert_memory_equal(res_frame_payload(&r, &len), "hello", 5);
	res_frame_next(&r);
	assert_int_equal(res_frame_read_fd(&r, sv[0]), RES_FRAME_READY);
	assert_memory_equal(res_frame_payload(&r, &len), "ok", 2);
	res_frame_next(&r);
	/* Closed inside a frame, then between frames. */
	assert_int_equal(write(sv[1], "\0\0", 2), 2);
	close(sv[1]);
	assert_int_equal(res_frame_read_fd(&r, sv[0]), RES_FRAME_TRUNCATED);
	res_frame_next(&r);
	assert_int_equal(res_frame_read_fd(&r, sv[0]), RES_FRAME_EOF);
	res_frame_reader_free(&r);
	close(sv[0]);
}

/* ---- authentication ---- */

static const uint8_t key[] = "0123456789abcdef-shared-key";

/* A server and a client that exchanged hellos. */
static void pair(struct res_auth *srv, struct res_auth *cli)
{
	uint8_t hs[RES_AUTH_HELLO_SIZE], hc[RES_AUTH_HELLO_SIZE];
	assert_int_equal(res_auth_init(srv, key, sizeof(key) - 1, true), 0);
	assert_int_equal(res_auth_init(cli, key, sizeof(key) - 1, false), 0);
	assert_false(res_auth_ready(srv));
	assert_int_equal(res_auth_hello(srv, hs), 0);
	assert_int_equal(res_auth_hello(cli, hc), 0);
	assert_memory_equal(hs, RES_AUTH_MAGIC, RES_AUTH_MAGIC_SIZE);
	assert_int_equal(res_auth_accept_hello(srv, hc, sizeof(hc)), 0);
	assert_int_equal(res_auth_accept_hello(cli, hs, sizeof(hs)), 0);
	assert_true(res_auth_ready(srv));
	assert_true(res_auth_ready(cli));
	/* A second hello is refused. */
	assert_int_equal(res_auth_accept_hello(srv, hc, sizeof(hc)), -1);
}

/* Seal with `from`, return the frame's payload (pickle | tag), malloc'd. */
static uint8_t *seal(struct res_auth *from, const char *msg, size_t *len)
{
	uint8_t *frame;
	size_t n;
	assert_int_equal(res_frame_build(from, msg, strlen(msg), &frame, &n), 0);
	assert_int_equal(n, 4 + strlen(msg) + RES_AUTH_TAG_SIZE);
	assert_int_equal(((size_t)frame[2] << 8 | frame[3]), strlen(msg) + RES_AUTH_TAG_SIZE);
	*len = n - 4;
	memmove(frame, frame + 4, *len);
	return frame;
}

static void auth_good_and_bad(void **state)
{
	(void)state;
	struct res_auth srv, cli;
	pair(&srv, &cli);
	size_t len, plen;

	/* Good tags both ways, sequences advancing. */
	uint8_t *f0 = seal(&cli, "request-0", &len);
	assert_int_equal(res_auth_open(&srv, f0, len, &plen), 0);
	assert_int_equal(plen, 9);
	assert_memory_equal(f0, "request-0", 9);
	uint8_t *r0 = seal(&srv, "reply-0", &len);
	assert_int_equal(res_auth_open(&cli, r0, len, &plen), 0);

	/* Replay of request 0 (the server now expects sequence 1). */
	size_t l0 = strlen("request-0") + RES_AUTH_TAG_SIZE;
	assert_int_equal(res_auth_open(&srv, f0, l0, &plen), -1);

	/* A flipped bit anywhere: payload or tag. */
	uint8_t *f1 = seal(&cli, "request-1", &len);
	for (size_t i = 0; i < len; i += 7) {
		f1[i] ^= 0x10;
		assert_int_equal(res_auth_open(&srv, f1, len, &plen), -1);
		f1[i] ^= 0x10;
	}
	/* Reflection: the client's own frame sent back to it. */
	assert_int_equal(res_auth_open(&cli, f1, len, &plen), -1);
	/* Too short to hold a tag. */
	assert_int_equal(res_auth_open(&srv, f1, RES_AUTH_TAG_SIZE - 1, &plen), -1);
	/* Intact, it still passes (failures did not advance the sequence). */
	assert_int_equal(res_auth_open(&srv, f1, len, &plen), 0);

	/* Another connection (other nonces) refuses this connection's frame. */
	struct res_auth srv2, cli2;
	pair(&srv2, &cli2);
	assert_int_equal(res_auth_open(&srv2, f0, l0, &plen), -1);
	/* A wrong server nonce on the client's side: its tags fail. */
	cli2.nonce_server[0] ^= 1;
	uint8_t *w = seal(&cli2, "request-0", &len);
	assert_int_equal(res_auth_open(&srv2, w, len, &plen), -1);
	/* A different key fails too. */
	struct res_auth other;
	static const uint8_t key2[] = "another-key-of-enough-length";
	assert_int_equal(res_auth_init(&other, key2, sizeof(key2) - 1, false), 0);
	memcpy(other.nonce_server, srv.nonce_server, RES_AUTH_NONCE_SIZE);
	memcpy(other.nonce_client, srv.nonce_client, RES_AUTH_NONCE_SIZE);
	other.have_own_nonce = other.have_peer_nonce = true;
	other.send_seq = 2;
	uint8_t *k = seal(&other, "request-2", &len);
	assert_int_equal(res_auth_open(&srv, k, len, &plen), -1);

	/* Not ready: nothing seals. */
	struct res_auth fresh;
	uint8_t *out;
	size_t n;
	assert_int_equal(res_auth_init(&fresh, key, sizeof(key) - 1, false), 0);
	assert_int_equal(res_frame_build(&fresh, "x", 1, &out, &n), -1);
	assert_int_equal(res_auth_init(&fresh, key, 15, false), -1);
	assert_int_equal(res_auth_accept_hello(&fresh, "MSTRAUT2xxxxxxxxxxxxxxxx", 24), -1);

	free(f0);
	free(r0);
	free(f1);
	free(w);
	free(k);
	res_auth_clear(&srv);
	res_auth_clear(&cli);
}

/* HMAC-SHA256 of one buffer, computed here independently of auth.c. */
static void hmac(const uint8_t *k, size_t klen, const uint8_t *msg, size_t n, uint8_t out[32])
{
	EVP_PKEY *pk = EVP_PKEY_new_mac_key(EVP_PKEY_HMAC, NULL, k, (int)klen);
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	size_t len = 32;
	assert_int_equal(EVP_DigestSignInit(c, NULL, EVP_sha256(), NULL, pk), 1);
	assert_int_equal(EVP_DigestSignUpdate(c, msg, n), 1);
	assert_int_equal(EVP_DigestSignFinal(c, out, &len), 1);
	EVP_MD_CTX_free(c);
	EVP_PKEY_free(pk);
}

/* The tag is the HMAC of exactly the layout frame.h documents. */
static void auth_tag_layout(void **state)
{
	(void)state;
	struct res_auth a, b;
	pair(&a, &b);
	uint8_t t1[32], t2[32], msg[128];
	size_t n = 0;
	memcpy(msg + n, "muster-reservation-v1", 21);
	n += 21;
	memcpy(msg + n, a.nonce_server, 16);
	n += 16;
	memcpy(msg + n, a.nonce_client, 16);
	n += 16;
	msg[n++] = 'C';
	memcpy(msg + n, "\0\0\0\0\0\0\1\2", 8); /* sequence 258, big-endian */
	n += 8;
	memcpy(msg + n, "pickle", 6);
	n += 6;
	hmac(key, sizeof(key) - 1, msg, n, t1);
	assert_int_equal(res_auth_tag(&a, 'C', 258, "pickle", 6, t2), 0);
	assert_memory_equal(t1, t2, 32);
	assert_int_equal(res_auth_tag(&b, 'C', 258, "pickle", 6, t2), 0);
	assert_memory_equal(t1, t2, 32); /* both ends agree */
	assert_int_equal(res_auth_tag(&a, 'S', 258, "pickle", 6, t2), 0);
	assert_memory_not_equal(t1, t2, 32);
}

static void key_file(void **state)
{
	(void)state;
	char dir[] = "/tmp/muster-key-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[128], err[256];
	snprintf(path, sizeof(path), "%s/key", dir);
	uint8_t k[RES_AUTH_MAX_KEY];
	size_t klen;

	FILE *f = fopen(path, "w");
	fputs("0123456789abcdefXYZ\r\n", f);
	fclose(f);
	chmod(path, 0600);
	assert_int_equal(res_auth_key_load(path, k, &klen, err, sizeof(err)), 0);
	assert_int_equal(klen, 19);
	assert_memory_equal(k, "0123456789abcdefXYZ", 19);

	chmod(path, 0604);
	assert_int_equal(res_auth_key_load(path, k, &klen, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "others"));

	f = fopen(path, "w");
	fputs("short\n", f);
	fclose(f);
	chmod(path, 0600);
	assert_int_equal(res_auth_key_load(path, k, &klen, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "shorter"));
	unlink(path);
	assert_int_equal(res_auth_key_load(path, k, &klen, err, sizeof(err)), -1);
	assert_non_null(strstr(err, path));
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(frame_build_plain),
		cmocka_unit_test(reader_feed),
		cmocka_unit_test(reader_cap),
		cmocka_unit_test(reader_fd),
		cmocka_unit_test(auth_good_and_bad),
		cmocka_unit_test(auth_tag_layout),
		cmocka_unit_test(key_file),
	};
	return run_tap_tests(tests, NULL, NULL);
}
