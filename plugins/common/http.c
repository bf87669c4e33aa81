#include <config.h>

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "http.h"

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc = CURLE_FAILED_INIT;

/* Never cleaned up: a plugin is never unloaded. */
static void global_init(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

CURLcode http_global_init(void)
{
	pthread_once(&global_once, global_init);
	return global_rc;
}

CURL *http_handle(char *errbuf)
{
	CURL *h = curl_easy_init();

	if (h == NULL)
		return NULL;
	errbuf[0] = '\0';
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L); /* threads: no SIGALRM */
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "muster/" PACKAGE_VERSION);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
#if LIBCURL_VERSION_NUM >= 0x075500 /* 7.85 */
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	return h;
}

long http_limit_ms(long left_ms, long cap_ms)
{
	long limit = left_ms - left_ms / 20 - 5;

	if (cap_ms > 0 && cap_ms < limit)
		limit = cap_ms;
	return limit < 1 ? 1 : limit;
}

void http_set_timeout(CURL *h, long ms)
{
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, ms);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ms);
}

const char *http_reason(long code)
{
	switch (code) {
	case 200: return " OK";
	case 400: return " Bad Request";
	case 401: return " Unauthorized";
	case 403: return " Forbidden";
	case 404: return " Not Found";
	case 405: return " Method Not Allowed";
	case 406: return " Not Acceptable";
	case 410: return " Gone";
	case 429: return " Too Many Requests";
	case 500: return " Internal Server Error";
	case 502: return " Bad Gateway";
	case 503: return " Service Unavailable";
	case 504: return " Gateway Timeout";
	default: return "";
	}
}

int http_tls_error(CURLcode rc)
{
	switch (rc) {
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_ENGINE_NOTFOUND:
	case CURLE_SSL_ENGINE_SETFAILED:
	case CURLE_SSL_ENGINE_INITFAILED:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_CRL_BADFILE:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
	case CURLE_USE_SSL_FAILED:
		return 1;
	default:
		return 0;
	}
}

int http_retryable(long code)
{
	return code == 429 || code >= 500;
}

long http_retry_after(const char *p, size_t len)
{
	const char *v = p + 12, *end = p + len;
	long s = 0;
	int digits = 0;

	if (len <= 12 || strncasecmp(p, "Retry-After:", 12) != 0)
		return -1;
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	while (v < end && isdigit((unsigned char)*v) && s < 86400) {
		s = s * 10 + (*v++ - '0');
		digits = 1;
	}
	return digits ? s : 1;
}

struct curl_slist *http_bearer(struct curl_slist *l, const char *token)
{
	char *auth = plugin_asprintf("Authorization: Bearer %s", token);
	struct curl_slist *n;

	if (auth == NULL)
		return NULL;
	n = curl_slist_append(l, auth);
	memset(auth, 0, strlen(auth));
	free(auth);
	return n;
}

void http_headers_free(struct curl_slist *l)
{
	struct curl_slist *p;

	for (p = l; p != NULL; p = p->next)
		memset(p->data, 0, strlen(p->data));
	curl_slist_free_all(l);
}
