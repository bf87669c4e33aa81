/*
 * libcrypto, bound at run time.  libmuster carries the reservation wire, yet
 * nearly no process authenticates a reservation frame, and merely loading
 * libcrypto costs every process start some 40% of a whole `muster resolve`
 * (docs/decisions.md).  So nothing links it: the first caller
 * dlopen()s the soname of the OpenSSL whose headers we were built with, once
 * per process.  A process that already has it loaded (the spark plugin links
 * it) gets that same copy.
 */
#ifndef MUSTER_TFOS_WIRE_CRYPTO_H
#define MUSTER_TFOS_WIRE_CRYPTO_H

#include <stddef.h>

#include <openssl/evp.h>

/* What auth.c uses, with OpenSSL's signatures (checked against its headers
 * in crypto.c). */
struct res_crypto {
	EVP_PKEY *(*pkey_new_mac_key)(int type, ENGINE *e, const unsigned char *key, int keylen);
	void (*pkey_free)(EVP_PKEY *key);
	EVP_MD_CTX *(*md_ctx_new)(void);
	void (*md_ctx_free)(EVP_MD_CTX *ctx);
	const EVP_MD *(*sha256)(void);
	int (*digest_sign_init)(EVP_MD_CTX *ctx, EVP_PKEY_CTX **pctx, const EVP_MD *type, ENGINE *e,
	                        EVP_PKEY *pkey);
	int (*digest_sign_update)(EVP_MD_CTX *ctx, const void *data, size_t len);
	int (*digest_sign_final)(EVP_MD_CTX *ctx, unsigned char *sig, size_t *siglen);
	int (*memcmp)(const void *a, const void *b, size_t len);
	int (*rand_bytes)(unsigned char *buf, int num);
};

/*
 * The bound functions (loading libcrypto on the first call, thread-safe), or
 * NULL when it cannot be loaded, with why in err: "authentication needs
 * libcrypto.so.3, which cannot be loaded: <dlerror()>".  err may be NULL.
 */
const struct res_crypto *res_crypto(char *err, size_t errlen);

#endif
