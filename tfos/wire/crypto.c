/* crypto.h's lazy binding of libcrypto. */
#include <config.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include <openssl/crypto.h>
#include <openssl/opensslv.h>
#include <openssl/rand.h>

#include "crypto.h"

/* The soname, from the headers we were compiled against (configure asks
 * for libcrypto >= 1.1): 3 and later name it OPENSSL_SHLIB_VERSION, 1.1
 * SHLIB_VERSION_NUMBER ("1.1"). */
#define STR_(x) #x
#define STR(x) STR_(x)
#if defined(OPENSSL_SHLIB_VERSION)
#define LIBCRYPTO "libcrypto.so." STR(OPENSSL_SHLIB_VERSION)
#elif defined(SHLIB_VERSION_NUMBER)
#define LIBCRYPTO "libcrypto.so." SHLIB_VERSION_NUMBER
#else
#error "no libcrypto soname in <openssl/opensslv.h>: OpenSSL 1.1 or later is required"
#endif

/* 1.1 has EVP_DigestSignUpdate only as a macro for EVP_DigestUpdate. */
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
#define DIGEST_SIGN_UPDATE EVP_DigestSignUpdate
#else
#define DIGEST_SIGN_UPDATE EVP_DigestUpdate
#endif

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct res_crypto bound;
static const struct res_crypto *ready; /* &bound once every symbol is bound */
static char failure[512];

/* field = dlsym(symbol), after checking at compile time that the field has
 * the symbol's type in OpenSSL's headers (typeof evaluates nothing, so this
 * adds no link dependency).  Two levels so that DIGEST_SIGN_UPDATE expands. */
#define BIND(field, symbol) BIND_(field, symbol)
#define BIND_(field, symbol)                                                                \
	do {                                                                                \
		_Static_assert(__builtin_types_compatible_p(__typeof__(&symbol),            \
		                                            __typeof__(bound.field)),       \
		               #symbol " does not have the type of res_crypto." #field);    \
		if (ok && !(bound.field = (__typeof__(bound.field))dlsym(lib, #symbol)))    \
			ok = 0;                                                             \
	} while (0)

static void bind_libcrypto(void)
{
	void *lib = dlopen(LIBCRYPTO, RTLD_NOW | RTLD_LOCAL);
	int ok = lib != NULL;

	BIND(pkey_new_mac_key, EVP_PKEY_new_mac_key);
	BIND(pkey_free, EVP_PKEY_free);
	BIND(md_ctx_new, EVP_MD_CTX_new);
	BIND(md_ctx_free, EVP_MD_CTX_free);
	BIND(sha256, EVP_sha256);
	BIND(digest_sign_init, EVP_DigestSignInit);
	BIND(digest_sign_update, DIGEST_SIGN_UPDATE);
	BIND(digest_sign_final, EVP_DigestSignFinal);
	BIND(memcmp, CRYPTO_memcmp);
	BIND(rand_bytes, RAND_bytes);
	if (ok) {
		ready = &bound;
		return;
	}
	/* dlerror() is per thread: keep its message for every later caller. */
	const char *why = dlerror();
	snprintf(failure, sizeof failure, "authentication needs %s, which cannot be loaded: %s",
	         LIBCRYPTO, why ? why : "unknown error");
	if (lib)
		dlclose(lib);
}

const struct res_crypto *res_crypto(char *err, size_t errlen)
{
	pthread_once(&once, bind_libcrypto);
	if (!ready && err && errlen)
		snprintf(err, errlen, "%s", failure);
	return ready;
}
