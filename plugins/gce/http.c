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
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gce.h"
#include "lib/clock.h"
#include "plugins/common/http.h"
#include "plugins/common/media.h"

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
	long retry_after = http_retry_after(p, len);

	if (retry_after >= 0) {
		a->retry_after = retry_after;
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

	CURLcode rc = http_global_init();

	if (rc != CURLE_OK)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "libcurl failed to initialise: %s", curl_easy_strerror(rc));
	if ((h = run->curl = http_handle(run->errbuf)) == NULL)
		return gce_nomem(run);
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	/* Google's endpoints are reached directly, as its own libraries do
	 * for the metadata server; a proxy would see the metadata token. */
	curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
	return MUSTER_STATUS_SUCCESS;
}

void gce_http_cleanup(struct gce_run *run)
{
	if (run->curl != NULL)
		curl_easy_cleanup(run->curl);
	run->curl = NULL;
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
		                method, url, code, http_reason(code), msg, run->token_source);
	else
		run->host->fail(run->call, "%s: %s %s: HTTP %ld%s%s", what, method, url, code,
		                http_reason(code), msg);
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
		if ((n = http_bearer(l, run->token)) == NULL)
			goto fail;
		l = n;
	}
	return l;
fail:
	curl_slist_free_all(l);
	return NULL;
}

muster_status gce_http(struct gce_run *run, const char *what, const char *method,
                       const char *url, const char *body, unsigned flags, long timeout_ms,
                       struct pbuf *out, long *code)
{
	const muster_host *h = run->host;
	struct answer a;
	struct backoff backoff = { 100, 0 };
	long attempt;
	char msg[400];

	*code = 0;
	for (attempt = 0;; attempt++) {
		long left = h->remaining_ms(run->call), limit, wait;
		struct curl_slist *hdr;
		CURLcode rc;

		if (left <= 0)
			return plugin_answer(h, run->call, MUSTER_STATUS_UNAVAIL,
			                     "%s: %s %s: the entry's time budget is spent", what,
			                     method, url);
		limit = http_limit_ms(left, timeout_ms);
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
		http_set_timeout(run->curl, limit);
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
		http_headers_free(hdr);
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
		if (!http_retryable(*code)) {
			if (flags & GCE_REQ_RAW)
				return MUSTER_STATUS_SUCCESS;
			gce_http_fail(run, what, method, url, *code, out);
			return MUSTER_STATUS_UNAVAIL;
		}
		/* 429 or 5xx: again, if the wait and one more try still fit. */
		error_message(out, run->answer_type, msg, sizeof(msg));
		wait = backoff_step(&backoff);
		if (a.retry_after >= 0)
			wait = a.retry_after * 1000;
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
				        http_reason(*code), msg, tail);
			return MUSTER_STATUS_UNAVAIL;
		}
		h->log(run->conf->pc, MUSTER_LOG_NOTICE, "%s: HTTP %ld; retrying in %ld ms", what, *code,
		       wait);
		clock_sleep_ms(wait);
	}
}
