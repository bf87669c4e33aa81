/*
 * gce: HTTP with libcurl.  One easy handle per resolve, reused for every
 * request (connections kept alive), every request bounded by what is left
 * of the entry's time budget (or a shorter limit, for the metadata probe).
 *
 * Retries: 5xx answers and 429 (quota) are retried up to `retries` times,
 * with exponential backoff (100 ms, 200 ms, ...) or the server's
 * Retry-After, but only while the wait and another attempt still fit in
 * the budget; then unavail with the API's own message.
 *
 * Secrets: the bearer token lives only in a header list that is wiped
 * after each request; request bodies (assertions, refresh tokens) are
 * never quoted; CURLOPT_VERBOSE is never set.
 */
#include "config.h"
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gce.h"
#include "../common/media.h"

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc = CURLE_FAILED_INIT;

/* curl_global_init is not thread-safe before libcurl 7.84: once, here.
 * Never cleaned up: the plugin is never unloaded. */
static void global_init(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

struct answer {
	struct pbuf *body;
	char *type;           /* the run's answer_type */
	long retry_after;     /* seconds, -1: none */
	int metadata_flavor;  /* "Metadata-Flavor: Google" seen */
};

static size_t on_write(char *p, size_t size, size_t n, void *data)
{
	struct answer *a = data;

	if (pbuf_append(a->body, p, size * n) < 0)
		return 0; /* CURLE_WRITE_ERROR; overflow tells why */
	return size * n;
}

static size_t on_header(char *p, size_t size, size_t n, void *data)
{
	struct answer *a = data;
	size_t len = size * n;

	if (len > 12 && strncasecmp(p, "Retry-After:", 12) == 0) {
		const char *v = p + 12;
		long s = 0;
		int digits = 0;

		while (v < p + len && (*v == ' ' || *v == '\t'))
			v++;
		while (v < p + len && isdigit((unsigned char)*v) && s < 86400) {
			s = s * 10 + (*v++ - '0');
			digits = 1;
		}
		/* An HTTP date is not worth parsing: treated as "soon". */
		a->retry_after = digits ? s : 1;
	} else if (len > 13 && strncasecmp(p, "Content-Type:", 13) == 0) {
		media_type(p + 13, len - 13, a->type, GCE_TYPE_SIZE);
	} else if (len > 16 && strncasecmp(p, "Metadata-Flavor:", 16) == 0) {
		const char *v = p + 16;

		while (v < p + len && (*v == ' ' || *v == '\t'))
			v++;
		if ((size_t)(p + len - v) >= 6 && strncmp(v, "Google", 6) == 0)
			a->metadata_flavor = 1;
	}
	return len;
}

muster_status gce_http_setup(struct gce_run *run)
{
	CURL *h;

	pthread_once(&global_once, global_init);
	if (global_rc != CURLE_OK) {
		run->host->fail(run->call, "libcurl failed to initialise: %s",
		                curl_easy_strerror(global_rc));
		return MUSTER_STATUS_UNAVAIL;
	}
	if ((h = run->curl = curl_easy_init()) == NULL)
		return gce_nomem(run);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L); /* threads: no SIGALRM */
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, run->errbuf);
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(h, CURLOPT_USERAGENT, "muster/" PACKAGE_VERSION);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	/* Google's endpoints are reached directly, as its own libraries do
	 * for the metadata server; a proxy would see the metadata token. */
	curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
#if LIBCURL_VERSION_NUM >= 0x075500 /* 7.85 */
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	return MUSTER_STATUS_SUCCESS;
}

void gce_http_cleanup(struct gce_run *run)
{
	if (run->curl != NULL)
		curl_easy_cleanup(run->curl);
	run->curl = NULL;
}

static const char *reason_phrase(long code)
{
	switch (code) {
	case 200: return " OK";
	case 400: return " Bad Request";
	case 401: return " Unauthorized";
	case 403: return " Forbidden";
	case 404: return " Not Found";
	case 429: return " Too Many Requests";
	case 500: return " Internal Server Error";
	case 502: return " Bad Gateway";
	case 503: return " Service Unavailable";
	case 504: return " Gateway Timeout";
	default: return "";
	}
}

/* The API's own words: Compute's {"error":{"message"}}, OAuth's
 * {"error":"x","error_description":"y"}; a proxy's error page by its type;
 * else a printable excerpt. */
static void error_message(const struct pbuf *body, const char *type, char *out, size_t size)
{
	cJSON *root = NULL, *e;
	const char *m = NULL, *d = NULL;
	size_t i, o = 0;

	out[0] = '\0';
	if (body->data == NULL || body->len == 0)
		return;
	root = cJSON_ParseWithLength(body->data, body->len);
	e = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "error") : NULL;
	if (cJSON_IsObject(e))
		m = gce_json_str(e, "message");
	else if (cJSON_IsString(e)) {
		m = e->valuestring;
		d = gce_json_str(root, "error_description");
	}
	if (m != NULL && m[0] != '\0') {
		snprintf(out, size, ": %s%s%s", m, d ? ": " : "", d ? d : "");
		cJSON_Delete(root);
		return;
	}
	cJSON_Delete(root);
	if (media_not_json(type)) {
		snprintf(out, size, ": the server answered %s, not JSON", type);
		return;
	}
	out[o++] = ':';
	out[o++] = ' ';
	for (i = 0; i < body->len && o + 1 < size && o < 120; i++) {
		unsigned char ch = (unsigned char)body->data[i];

		out[o++] = ch >= 0x20 && ch < 0x7f ? (char)ch : ' ';
	}
	out[o] = '\0';
}

void gce_http_fail(struct gce_run *run, const char *what, const char *method, const char *url,
                   long code, const struct pbuf *body)
{
	char msg[400];

	error_message(body, run->answer_type, msg, sizeof(msg));
	if ((code == 401 || code == 403) && run->token_source[0] != '\0')
		run->host->fail(run->call, "%s: %s %s: HTTP %ld%s%s (credentials from %s)", what,
		                method, url, code, reason_phrase(code), msg, run->token_source);
	else
		run->host->fail(run->call, "%s: %s %s: HTTP %ld%s%s", what, method, url, code,
		                reason_phrase(code), msg);
}

static struct curl_slist *headers(struct gce_run *run, unsigned flags)
{
	struct curl_slist *l = curl_slist_append(NULL, "Accept: application/json"), *n;

	if (l == NULL)
		return NULL;
	if (flags & GCE_REQ_METADATA) {
		if ((n = curl_slist_append(l, "Metadata-Flavor: Google")) == NULL)
			goto fail;
		l = n;
	}
	if (flags & (GCE_REQ_FORM | GCE_REQ_JSON)) {
		n = curl_slist_append(l, flags & GCE_REQ_FORM
		                             ? "Content-Type: application/x-www-form-urlencoded"
		                             : "Content-Type: application/json");
		if (n == NULL)
			goto fail;
		l = n;
	}
	if ((flags & GCE_REQ_AUTH) && run->token != NULL) {
		char *auth = plugin_asprintf("Authorization: Bearer %s", run->token);

		if (auth == NULL)
			goto fail;
		n = curl_slist_append(l, auth);
		memset(auth, 0, strlen(auth));
		free(auth);
		if (n == NULL)
			goto fail;
		l = n;
	}
	return l;
fail:
	curl_slist_free_all(l);
	return NULL;
}

static void wipe(struct curl_slist *l)
{
	struct curl_slist *p;

	for (p = l; p != NULL; p = p->next)
		memset(p->data, 0, strlen(p->data));
	curl_slist_free_all(l);
}

muster_status gce_http(struct gce_run *run, const char *what, const char *method,
                       const char *url, const char *body, unsigned flags, long timeout_ms,
                       struct pbuf *out, long *code)
{
	const muster_host *h = run->host;
	struct answer a;
	long backoff = 100, attempt;
	char msg[400];

	*code = 0;
	for (attempt = 0;; attempt++) {
		long left = h->remaining_ms(run->call), limit, wait;
		struct curl_slist *hdr;
		CURLcode rc;

		if (left <= 0) {
			h->fail(run->call, "%s: %s %s: the entry's time budget is spent", what, method,
			        url);
			return MUSTER_STATUS_UNAVAIL;
		}
		/* A little short of the budget, so that the answer — "timed
		 * out", with the URL — still arrives in time. */
		limit = left - left / 20 - 5;
		if (timeout_ms > 0 && timeout_ms < limit)
			limit = timeout_ms;
		if (limit < 1)
			limit = 1;
		if ((hdr = headers(run, flags)) == NULL)
			return gce_nomem(run);
		pbuf_reset(out);
		a.body = out;
		a.type = run->answer_type;
		a.type[0] = '\0';
		a.retry_after = -1;
		a.metadata_flavor = 0;
		run->errbuf[0] = '\0';
		curl_easy_setopt(run->curl, CURLOPT_URL, url);
		curl_easy_setopt(run->curl, CURLOPT_HTTPHEADER, hdr);
		curl_easy_setopt(run->curl, CURLOPT_WRITEDATA, &a);
		curl_easy_setopt(run->curl, CURLOPT_HEADERDATA, &a);
		curl_easy_setopt(run->curl, CURLOPT_TIMEOUT_MS, limit);
		curl_easy_setopt(run->curl, CURLOPT_CONNECTTIMEOUT_MS, limit);
		if (strcmp(method, "POST") == 0) {
			curl_easy_setopt(run->curl, CURLOPT_POST, 1L);
			curl_easy_setopt(run->curl, CURLOPT_POSTFIELDS, body != NULL ? body : "");
		} else
			curl_easy_setopt(run->curl, CURLOPT_HTTPGET, 1L);
		rc = curl_easy_perform(run->curl);
		run->requests++;
		/* Never leave a request body (an assertion) reachable from the
		 * handle, nor the header list. */
		curl_easy_setopt(run->curl, CURLOPT_POSTFIELDS, NULL);
		curl_easy_setopt(run->curl, CURLOPT_HTTPHEADER, NULL);
		wipe(hdr);
		if (rc != CURLE_OK) {
			const char *why = run->errbuf[0] ? run->errbuf : curl_easy_strerror(rc);

			if (rc == CURLE_WRITE_ERROR && out->overflow)
				h->fail(run->call, "%s: %s %s: the answer is larger than %zu bytes", what,
				        method, url, out->max);
			else if (rc == CURLE_OPERATION_TIMEDOUT)
				h->fail(run->call, "%s: %s %s: no answer within %ld ms: %s", what, method,
				        url, limit, why);
			else
				h->fail(run->call, "%s: %s %s: %s", what, method, url, why);
			return MUSTER_STATUS_UNAVAIL;
		}
		curl_easy_getinfo(run->curl, CURLINFO_RESPONSE_CODE, code);
		if ((flags & GCE_REQ_METADATA) && !a.metadata_flavor && *code == 200) {
			h->fail(run->call, "%s: %s %s: the answer lacks \"Metadata-Flavor: Google\"; "
			                   "this is not a GCE metadata server",
			        what, method, url);
			return MUSTER_STATUS_UNAVAIL;
		}
		if (*code == 200)
			return MUSTER_STATUS_SUCCESS;
		if (*code != 429 && *code < 500) {
			if (flags & GCE_REQ_RAW)
				return MUSTER_STATUS_SUCCESS;
			gce_http_fail(run, what, method, url, *code, out);
			return MUSTER_STATUS_UNAVAIL;
		}
		/* 429 or 5xx: again, if the wait and one more try still fit. */
		error_message(out, run->answer_type, msg, sizeof(msg));
		wait = a.retry_after >= 0 ? a.retry_after * 1000 : backoff;
		left = h->remaining_ms(run->call);
		if (attempt >= run->conf->retries || wait + 50 > left) {
			char tail[160];

			if (attempt >= run->conf->retries)
				snprintf(tail, sizeof(tail), " (gave up after %ld attempt%s%s)", attempt + 1,
				         attempt ? "s" : "",
				         a.retry_after >= 0 && *code == 429 ? "; the API asks to retry later"
				                                            : "");
			else if (a.retry_after >= 0)
				snprintf(tail, sizeof(tail),
				         " (the API asks to retry after %ld s; %ld ms of the budget left)",
				         a.retry_after, left);
			else
				snprintf(tail, sizeof(tail), " (no time left to retry; %ld attempt%s)",
				         attempt + 1, attempt ? "s" : "");
			if (*code == 429)
				h->fail(run->call, "%s: %s %s: HTTP 429 Too Many Requests (quota)%s%s", what,
				        method, url, msg, tail);
			else
				h->fail(run->call, "%s: %s %s: HTTP %ld%s%s%s", what, method, url, *code,
				        reason_phrase(*code), msg, tail);
			return MUSTER_STATUS_UNAVAIL;
		}
		h->log(run->conf->pc, GCE_LOG_NOTICE, "%s: HTTP %ld; retrying in %ld ms", what, *code,
		       wait);
		gce_sleep_ms(wait);
		backoff *= 2;
	}
}

muster_status gce_api(struct gce_run *run, const char *what, const char *method, const char *url,
                      const char *body, struct pbuf *out)
{
	unsigned flags = GCE_REQ_AUTH | GCE_REQ_RAW | (body != NULL ? GCE_REQ_JSON : 0);
	muster_status st;
	long code;

	st = gce_http(run, what, method, url, body, flags, 0, out, &code);
	if (st == MUSTER_STATUS_SUCCESS && code == 401 && run->token_cached && !run->reauthed) {
		/* Revoked before its time: drop it, fetch a new one, once. */
		run->reauthed = 1;
		run->host->log(run->conf->pc, GCE_LOG_NOTICE,
		               "%s: HTTP 401 with a cached token; fetching a new one", what);
		gce_auth_forget(run);
		if ((st = gce_auth(run)) != MUSTER_STATUS_SUCCESS)
			return st;
		st = gce_http(run, what, method, url, body, flags, 0, out, &code);
	}
	if (st == MUSTER_STATUS_SUCCESS && code != 200) {
		gce_http_fail(run, what, method, url, code, out);
		return MUSTER_STATUS_UNAVAIL;
	}
	return st;
}
