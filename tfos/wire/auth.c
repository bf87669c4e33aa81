/*
 * frame.h's authentication (format in frame.h) and the frame writer, which
 * appends the tag when a connection is authenticated.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crypto.h"
#include "frame.h"
#include "lib/reason.h"

/* Secrets are wiped with explicit_bzero, here and in every caller: it needs
 * no libcrypto, so a key read by a process that never loaded it is wiped too. */

int res_auth_key_load(const char *path, uint8_t *key, size_t *key_len, char *err, size_t errlen)
{
	uint8_t buf[RES_AUTH_MAX_KEY + 3];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return reason_fail(err, errlen, "auth key file %s: %s", path, strerror(errno));
	struct stat st;
	const char *why = NULL;
	if (fstat(fd, &st) != 0)
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	else if (st.st_mode & (S_IROTH | S_IWOTH))
		why = "readable or writable by others (chmod o-rw)";
	size_t n = 0;
	while (!why && n < sizeof(buf)) {
		ssize_t got = read(fd, buf + n, sizeof(buf) - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			why = strerror(errno);
		else if (got == 0)
			break;
		else
			n += (size_t)got;
	}
	close(fd);
	if (!why) {
		if (n && buf[n - 1] == '\n') {
			n--;
			if (n && buf[n - 1] == '\r')
				n--;
		}
		if (n > RES_AUTH_MAX_KEY)
			why = "key longer than 1024 bytes";
		else if (n < RES_AUTH_MIN_KEY)
			why = "key shorter than 16 bytes";
	}
	if (why) {
		explicit_bzero(buf, sizeof(buf));
		return reason_fail(err, errlen, "auth key file %s: %s", path, why);
	}
	memcpy(key, buf, n);
	*key_len = n;
	explicit_bzero(buf, sizeof(buf));
	/* A key means authenticated connections: a process that cannot load
	 * libcrypto fails here, at start, rather than on its first connection. */
	if (!res_crypto(err, errlen)) {
		explicit_bzero(key, n);
		return -1;
	}
	return 0;
}

int res_auth_init(struct res_auth *a, const uint8_t *key, size_t key_len, bool is_server)
{
	memset(a, 0, sizeof(*a));
	if (!key || key_len < RES_AUTH_MIN_KEY || key_len > RES_AUTH_MAX_KEY)
		return -1;
	memcpy(a->key, key, key_len);
	a->key_len = key_len;
	a->is_server = is_server;
	return 0;
}

int res_auth_hello(struct res_auth *a, uint8_t out[RES_AUTH_HELLO_SIZE])
{
	const struct res_crypto *c = res_crypto(NULL, 0);
	uint8_t *own = a->is_server ? a->nonce_server : a->nonce_client;
	if (!c || c->rand_bytes(own, RES_AUTH_NONCE_SIZE) != 1)
		return -1;
	a->have_own_nonce = true;
	memcpy(out, RES_AUTH_MAGIC, RES_AUTH_MAGIC_SIZE);
	memcpy(out + RES_AUTH_MAGIC_SIZE, own, RES_AUTH_NONCE_SIZE);
	return 0;
}

int res_auth_accept_hello(struct res_auth *a, const void *payload, size_t len)
{
	if (a->have_peer_nonce || len != RES_AUTH_HELLO_SIZE ||
	    memcmp(payload, RES_AUTH_MAGIC, RES_AUTH_MAGIC_SIZE) != 0)
		return -1;
	uint8_t *peer = a->is_server ? a->nonce_client : a->nonce_server;
	memcpy(peer, (const uint8_t *)payload + RES_AUTH_MAGIC_SIZE, RES_AUTH_NONCE_SIZE);
	a->have_peer_nonce = true;
	return 0;
}

bool res_auth_ready(const struct res_auth *a)
{
	return a && a->have_own_nonce && a->have_peer_nonce;
}

int res_auth_tag(const struct res_auth *a, char direction, uint64_t seq, const void *pickle,
                 size_t len, uint8_t tag[RES_AUTH_TAG_SIZE])
{
	const struct res_crypto *c = res_crypto(NULL, 0);
	if (!c)
		return -1;
	uint8_t seqb[8];
	for (int i = 0; i < 8; i++)
		seqb[i] = (uint8_t)(seq >> (56 - 8 * i));
	uint8_t dir = (uint8_t)direction;
	size_t tag_len = RES_AUTH_TAG_SIZE;
	int ok = 0;

	/* EVP_DigestSign with an HMAC key: the same code on OpenSSL 1.1 and 3
	 * (HMAC_CTX is deprecated in 3). */
	EVP_PKEY *key = c->pkey_new_mac_key(EVP_PKEY_HMAC, NULL, a->key, (int)a->key_len);
	EVP_MD_CTX *h = c->md_ctx_new();
	if (key && h && c->digest_sign_init(h, NULL, c->sha256(), NULL, key) == 1 &&
	    c->digest_sign_update(h, RES_AUTH_CONTEXT, strlen(RES_AUTH_CONTEXT)) == 1 &&
	    c->digest_sign_update(h, a->nonce_server, RES_AUTH_NONCE_SIZE) == 1 &&
	    c->digest_sign_update(h, a->nonce_client, RES_AUTH_NONCE_SIZE) == 1 &&
	    c->digest_sign_update(h, &dir, 1) == 1 && c->digest_sign_update(h, seqb, sizeof(seqb)) == 1 &&
	    c->digest_sign_update(h, pickle, len) == 1 &&
	    c->digest_sign_final(h, tag, &tag_len) == 1 && tag_len == RES_AUTH_TAG_SIZE)
		ok = 1;
	c->md_ctx_free(h);
	c->pkey_free(key);
	return ok ? 0 : -1;
}

/* Frames we send go in our direction; frames we receive in the other. */
static char send_dir(const struct res_auth *a) { return a->is_server ? 'S' : 'C'; }
static char recv_dir(const struct res_auth *a) { return a->is_server ? 'C' : 'S'; }

int res_auth_open(struct res_auth *a, const void *payload, size_t len, size_t *pickle_len)
{
	const struct res_crypto *c = res_crypto(NULL, 0);
	uint8_t want[RES_AUTH_TAG_SIZE];
	if (!c || !res_auth_ready(a) || len < RES_AUTH_TAG_SIZE)
		return -1;
	size_t n = len - RES_AUTH_TAG_SIZE;
	if (res_auth_tag(a, recv_dir(a), a->recv_seq, payload, n, want) != 0)
		return -1;
	if (c->memcmp(want, (const uint8_t *)payload + n, RES_AUTH_TAG_SIZE) != 0)
		return -1;
	a->recv_seq++;
	*pickle_len = n;
	return 0;
}

void res_auth_clear(struct res_auth *a)
{
	explicit_bzero(a, sizeof(*a));
}

int res_frame_build(struct res_auth *auth, const void *payload, size_t len, uint8_t **out,
                    size_t *out_len)
{
	size_t tag = auth ? RES_AUTH_TAG_SIZE : 0;
	if (len > UINT32_MAX - tag || (auth && !res_auth_ready(auth)))
		return -1;
	size_t body = len + tag;
	uint8_t *b = malloc(RES_FRAME_HEADER_SIZE + body);
	if (!b)
		return -1;
	b[0] = (uint8_t)(body >> 24);
	b[1] = (uint8_t)(body >> 16);
	b[2] = (uint8_t)(body >> 8);
	b[3] = (uint8_t)body;
	if (len)
		memcpy(b + RES_FRAME_HEADER_SIZE, payload, len);
	if (auth) {
		if (res_auth_tag(auth, send_dir(auth), auth->send_seq, payload, len,
		                 b + RES_FRAME_HEADER_SIZE + len) != 0) {
			free(b);
			return -1;
		}
		auth->send_seq++;
	}
	*out = b;
	*out_len = RES_FRAME_HEADER_SIZE + body;
	return 0;
}
