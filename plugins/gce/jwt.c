/*
 * gce: the JWT a service-account key signs to get an access token
 * (RFC 7523 bearer assertion, as google-auth builds it):
 *   header  {"alg":"RS256","typ":"JWT","kid":private_key_id}
 *   claims  {"iss":client_email,"scope":SCOPE,"aud":token_uri,
 *            "iat":now,"exp":now+3600}
 * signed with RSASSA-PKCS1-v1_5 over SHA-256 (libcrypto).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "gce.h"

/* RFC 4648 base64url without padding, as JWT writes it; NULL when out of memory. */
static char *gce_base64url(const unsigned char *p, size_t n)
{
	static const char abc[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	char *out = malloc(n / 3 * 4 + 5), *o = out;
	size_t i;

	if (out == NULL)
		return NULL;
	for (i = 0; i + 2 < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];

		*o++ = abc[v >> 18];
		*o++ = abc[(v >> 12) & 63];
		*o++ = abc[(v >> 6) & 63];
		*o++ = abc[v & 63];
	}
	if (n - i == 1) {
		unsigned v = (unsigned)p[i] << 16;

		*o++ = abc[v >> 18];
		*o++ = abc[(v >> 12) & 63];
	} else if (n - i == 2) {
		unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8;

		*o++ = abc[v >> 18];
		*o++ = abc[(v >> 12) & 63];
		*o++ = abc[(v >> 6) & 63];
	}
	*o = '\0';
	return out;
}

static char *b64_json(cJSON *obj)
{
	char *json = obj != NULL ? cJSON_PrintUnformatted(obj) : NULL, *out;

	if (json == NULL)
		return NULL;
	out = gce_base64url((const unsigned char *)json, strlen(json));
	cJSON_free(json);
	return out;
}

static EVP_PKEY *read_key(const char *pem, const char **why)
{
	BIO *bio = BIO_new_mem_buf(pem, -1);
	EVP_PKEY *k;

	if (bio == NULL) {
		*why = "out of memory";
		return NULL;
	}
	k = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
	BIO_free(bio);
	if (k == NULL) {
		*why = "private_key is not a PEM private key";
		return NULL;
	}
	if (EVP_PKEY_base_id(k) != EVP_PKEY_RSA) {
		*why = "private_key is not an RSA key (RS256 needs one)";
		EVP_PKEY_free(k);
		return NULL;
	}
	return k;
}

char *gce_jwt(const char *client_email, const char *private_key, const char *key_id,
              const char *scope, const char *aud, long long now, const char **why)
{
	cJSON *hdr = cJSON_CreateObject(), *cl = cJSON_CreateObject();
	char *h64 = NULL, *c64 = NULL, *input = NULL, *s64 = NULL, *jwt = NULL;
	unsigned char *sig = NULL;
	size_t siglen = 0;
	EVP_PKEY *key = NULL;
	EVP_MD_CTX *md = NULL;

	*why = "out of memory";
	if (hdr == NULL || cl == NULL)
		goto out;
	if (!cJSON_AddStringToObject(hdr, "alg", "RS256") ||
	    !cJSON_AddStringToObject(hdr, "typ", "JWT") ||
	    (key_id != NULL && key_id[0] != '\0' && !cJSON_AddStringToObject(hdr, "kid", key_id)) ||
	    !cJSON_AddStringToObject(cl, "iss", client_email) ||
	    !cJSON_AddStringToObject(cl, "scope", scope) || !cJSON_AddStringToObject(cl, "aud", aud) ||
	    !cJSON_AddNumberToObject(cl, "iat", (double)now) ||
	    !cJSON_AddNumberToObject(cl, "exp", (double)(now + 3600)))
		goto out;
	if ((h64 = b64_json(hdr)) == NULL || (c64 = b64_json(cl)) == NULL ||
	    (input = plugin_asprintf("%s.%s", h64, c64)) == NULL)
		goto out;
	if ((key = read_key(private_key, why)) == NULL)
		goto out;
	if ((md = EVP_MD_CTX_new()) == NULL)
		goto out;
	if (EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, key) != 1 ||
	    EVP_DigestSign(md, NULL, &siglen, (const unsigned char *)input, strlen(input)) != 1 ||
	    (sig = malloc(siglen)) == NULL ||
	    EVP_DigestSign(md, sig, &siglen, (const unsigned char *)input, strlen(input)) != 1) {
		*why = "signing the JWT failed (libcrypto)";
		goto out;
	}
	if ((s64 = gce_base64url(sig, siglen)) == NULL)
		goto out;
	jwt = plugin_asprintf("%s.%s", input, s64);
out:
	EVP_MD_CTX_free(md);
	EVP_PKEY_free(key);
	cJSON_Delete(hdr);
	cJSON_Delete(cl);
	free(h64);
	free(c64);
	free(input);
	free(sig);
	free(s64);
	return jwt;
}
