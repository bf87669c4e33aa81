/*
 * kubernetes: HTTP with libcurl.  One easy handle per resolve, reused for
 * every page (one connection, kept alive), every request bounded by what
 * is left of the entry's time budget.  gzip is asked for and decoded here,
 * not by libcurl: a gzip answer is gathered compressed and decoded whole
 * by libdeflate into the sink (gunzip.c), which is faster than libcurl's
 * step-by-step zlib stream; an identity answer goes to the sink as it
 * arrives.
 *
 * Secrets: the bearer token lives only in the Authorization header list;
 * CURLOPT_VERBOSE is never set, and messages quote curl's error buffer and
 * the API's Status message, neither of which carries request headers.
 * Key material from a kubeconfig's -data forms goes in as blobs.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cJSON.h>
#include <libdeflate.h>

#include "k8s.h"
#include "plugins/common/http.h"
#include "plugins/common/media.h"

#define HAVE_CURL_BLOBS (LIBCURL_VERSION_NUM >= 0x074d00) /* CAINFO_BLOB: 7.77 */

/* One GET's answer: a 200 in identity goes to the sink as it arrives, a
 * gzip one is gathered compressed, any other is kept (small: a Status)
 * for its message. */
struct answer {
	CURL *curl;
	long code;             /* 0 until the first bytes */
	const struct k8s_sink *sink;
	struct pbuf *gzipped;  /* the run's, when Content-Encoding is gzip */
	int gzip;
	char encoding[48];     /* a Content-Encoding other than gzip: refused */
	char type[48];         /* the Content-Type's media type, lower case */
	size_t bytes;
	int overflow, stopped;
	struct pbuf body;
};

/* Each header line of each response (a 1xx's too): the encoding. */
static size_t on_header(char *p, size_t size, size_t n, void *data)
{
	struct answer *a = data;
	size_t len = size * n, i;
	static const char name[] = "content-encoding:", ctype[] = "content-type:";

	if (len >= 5 && memcmp(p, "HTTP/", 5) == 0) {
		a->gzip = 0; /* a new response */
		a->encoding[0] = '\0';
		a->type[0] = '\0';
	} else if (len > sizeof(ctype) - 1 && strncasecmp(p, ctype, sizeof(ctype) - 1) == 0) {
		media_type(p + sizeof(ctype) - 1, len - (sizeof(ctype) - 1), a->type,
		               sizeof(a->type));
	} else if (len > sizeof(name) - 1 && strncasecmp(p, name, sizeof(name) - 1) == 0) {
		p += sizeof(name) - 1;
		len -= sizeof(name) - 1;
		while (len > 0 && (*p == ' ' || *p == '\t'))
			p++, len--;
		while (len > 0 && (p[len - 1] == '\r' || p[len - 1] == '\n' || p[len - 1] == ' ' ||
		                   p[len - 1] == '\t'))
			len--;
		if (len == 4 && strncasecmp(p, "gzip", 4) == 0)
			a->gzip = 1;
		else if (len > 0 && !(len == 8 && strncasecmp(p, "identity", 8) == 0)) {
			for (i = 0; i < len && i + 1 < sizeof(a->encoding); i++)
				a->encoding[i] = p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '?';
			a->encoding[i] = '\0';
		}
	}
	return size * n;
}

static size_t on_write(char *p, size_t size, size_t n, void *data)
{
	struct answer *a = data;
	char *room;

	if (a->code == 0)
		curl_easy_getinfo(a->curl, CURLINFO_RESPONSE_CODE, &a->code);
	if (a->encoding[0] != '\0')
		return 0; /* CURLE_WRITE_ERROR, reported as the encoding */
	if ((a->bytes += size * n) > K8S_MAX_PAGE) {
		a->overflow = 1;
		return 0;
	}
	if (a->code == 200 && media_not_json(a->type))
		return 0; /* CURLE_WRITE_ERROR, reported as the type */
	if (a->gzip)
		return pbuf_append(a->gzipped, p, size * n) < 0 ? 0 : size * n;
	if (a->code != 200)
		return pbuf_append(&a->body, p, size * n) < 0 ? 0 : size * n;
	if ((room = a->sink->room(a->sink->ctx, size * n)) == NULL) {
		a->stopped = 1; /* out of memory */
		return 0;
	}
	memcpy(room, p, size * n);
	a->sink->wrote(a->sink->ctx, size * n);
	return size * n;
}

/* A pbuf as a sink: an error answer's body decoded into a->body, a whole
 * answer into the caller's buffer. */
static char *body_room(void *ctx, size_t n)
{
	return pbuf_room(ctx, n);
}

static void body_wrote(void *ctx, size_t n)
{
	pbuf_wrote(ctx, n);
}

static muster_status set_blob(struct k8s_run *run, CURLoption path_opt, CURLoption blob_opt,
                              const struct k8s_blob *b, const char *what)
{
	CURLcode rc = CURLE_OK;

	if (b->path != NULL)
		rc = curl_easy_setopt(run->curl, path_opt, b->path);
	else if (b->data != NULL) {
#if HAVE_CURL_BLOBS
		struct curl_blob blob;

		blob.data = b->data;
		blob.len = b->len;
		blob.flags = CURL_BLOB_COPY;
		rc = curl_easy_setopt(run->curl, blob_opt, &blob);
#else
		(void)blob_opt;
		run->host->fail(run->call, "%s: the kubeconfig's %s-data form needs libcurl >= 7.77 "
		                           "(this one is %s); use a file path instead",
		                run->conn.source, what, LIBCURL_VERSION);
		return MUSTER_STATUS_UNAVAIL;
#endif
	}
	if (rc != CURLE_OK)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "libcurl refuses the %s: %s", what, curl_easy_strerror(rc));
	return MUSTER_STATUS_SUCCESS;
}

muster_status k8s_http_setup(struct k8s_run *run)
{
	const struct k8s_conn *c = &run->conn;
	CURLcode rc = http_global_init();
	muster_status st;
	CURL *h;

	if (rc != CURLE_OK)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "libcurl failed to initialise: %s", curl_easy_strerror(rc));
	if ((h = run->curl = http_handle(run->errbuf)) == NULL)
		return k8s_nomem(run);
	if ((run->inflater = libdeflate_alloc_decompressor()) == NULL)
		return k8s_nomem(run);
	pbuf_init(&run->gzipped, K8S_MAX_PAGE);
	if ((run->headers = curl_slist_append(NULL, "Accept: application/json")) == NULL ||
	    (run->headers = curl_slist_append(run->headers, "Accept-Encoding: gzip")) == NULL)
		return k8s_nomem(run);
	if (c->token != NULL) {
		struct curl_slist *l = http_bearer(run->headers, c->token);

		if (l == NULL)
			return k8s_nomem(run);
		run->headers = l;
		if (strncmp(c->server, "http://", 7) == 0)
			run->host->log(run->conf->pc, MUSTER_LOG_WARNING,
			               "sending a bearer token over plain http to %s", c->server);
	}
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, run->headers);
	curl_easy_setopt(h, CURLOPT_HTTP_CONTENT_DECODING, 0L); /* gzip: decoded here */
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
	if (c->insecure) {
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
		run->host->log(run->conf->pc, MUSTER_LOG_WARNING,
		               "insecure_skip_tls_verify: the certificate of %s is not checked "
		               "(from %s)",
		               c->server, c->source);
	}
	if ((st = set_blob(run, CURLOPT_CAINFO,
#if HAVE_CURL_BLOBS
	                   CURLOPT_CAINFO_BLOB,
#else
	                   CURLOPT_CAINFO,
#endif
	                   &c->ca, "certificate-authority")) != MUSTER_STATUS_SUCCESS)
		return st;
	if ((st = set_blob(run, CURLOPT_SSLCERT,
#if HAVE_CURL_BLOBS
	                   CURLOPT_SSLCERT_BLOB,
#else
	                   CURLOPT_SSLCERT,
#endif
	                   &c->cert, "client-certificate")) != MUSTER_STATUS_SUCCESS)
		return st;
	if ((st = set_blob(run, CURLOPT_SSLKEY,
#if HAVE_CURL_BLOBS
	                   CURLOPT_SSLKEY_BLOB,
#else
	                   CURLOPT_SSLKEY,
#endif
	                   &c->key, "client-key")) != MUSTER_STATUS_SUCCESS)
		return st;
	return MUSTER_STATUS_SUCCESS;
}

void k8s_http_cleanup(struct k8s_run *run)
{
	if (run->curl != NULL)
		curl_easy_cleanup(run->curl);
	run->curl = NULL;
	if (run->inflater != NULL)
		libdeflate_free_decompressor(run->inflater);
	run->inflater = NULL;
	pbuf_free(&run->gzipped);
	http_headers_free(run->headers);
	run->headers = NULL;
}

/* An error answer: the API's Status `message` when the body is one. */
static void fail_status(struct k8s_run *run, const char *url, long code, const char *type,
                        struct pbuf *body)
{
	const char *msg = NULL;
	cJSON *root = NULL, *m;
	char excerpt[160], where[320] = "";

	if (body->data != NULL && body->len > 0) {
		root = cJSON_ParseWithLength(body->data, body->len);
		m = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "message") : NULL;
		if (cJSON_IsString(m) && m->valuestring[0] != '\0')
			msg = m->valuestring;
	}
	if (msg == NULL && media_not_json(type)) {
		/* A proxy's error page: its markup would tell nothing more. */
		snprintf(excerpt, sizeof(excerpt), "the server answered %s, not JSON", type);
		msg = excerpt;
	} else if (msg == NULL && body->data != NULL && body->len > 0) {
		/* Not a Status (a proxy's page): a printable excerpt. */
		size_t i, o = 0;

		for (i = 0; i < body->len && o + 1 < sizeof(excerpt) && o < 100; i++) {
			unsigned char ch = (unsigned char)body->data[i];

			excerpt[o++] = ch >= 0x20 && ch < 0x7f ? (char)ch : ' ';
		}
		excerpt[o] = '\0';
		msg = excerpt;
	}
	if (code == 401 || code == 403) {
		int creds = run->conn.token != NULL || run->conn.cert.path != NULL ||
		            run->conn.cert.data != NULL;

		snprintf(where, sizeof(where), " (%s from %s)",
		         creds ? "credentials" : "no credentials were sent; server", run->conn.source);
	}
	run->host->fail(run->call, "GET %s: HTTP %ld%s%s%s%s%s", url, code, http_reason(code),
	                msg ? ": " : "", msg ? msg : "", where,
	                (code == 403 || code == 404) && run->hint ? run->hint : "");
	cJSON_Delete(root);
}

/* A gzip answer, decoded: a 200 into the sink, any other into a->body
 * (if it cannot be decoded, its status alone tells what happened). */
static muster_status decode(struct k8s_run *run, struct answer *a, const char *url, long code)
{
	struct k8s_sink body = { body_room, body_wrote, &a->body };
	char why[160] = "";
	int rc = k8s_gunzip(run->inflater, a->gzipped->data, a->gzipped->len, K8S_MAX_PAGE,
	                    code == 200 ? a->sink : &body, why, sizeof(why));

	if (code != 200) {
		if (rc != K8S_GUNZIP_OK)
			pbuf_reset(&a->body);
		return MUSTER_STATUS_SUCCESS;
	}
	switch (rc) {
	case K8S_GUNZIP_OK:
		return MUSTER_STATUS_SUCCESS;
	case K8S_GUNZIP_NOMEM:
		return k8s_nomem(run);
	case K8S_GUNZIP_TOO_LARGE:
		run->host->fail(run->call, "GET %s: the answer decodes to more than %zu MiB", url,
		                K8S_MAX_PAGE >> 20);
		return MUSTER_STATUS_UNAVAIL;
	default:
		run->host->fail(run->call, "GET %s: the answer is not valid gzip: %s", url, why);
		return MUSTER_STATUS_UNAVAIL;
	}
}

muster_status k8s_http_get(struct k8s_run *run, const char *path, const struct k8s_sink *sink,
                           long *code)
{
	long left = run->host->remaining_ms(run->call);
	muster_status st = MUSTER_STATUS_UNAVAIL;
	struct answer a;
	char *url;
	CURLcode rc;

	*code = 0;
	if ((url = plugin_asprintf("%s%s", run->conn.server, path)) == NULL)
		return k8s_nomem(run);
	if (left <= 0) {
		run->host->fail(run->call, "GET %s: the entry's time budget is spent", url);
		free(url);
		return MUSTER_STATUS_UNAVAIL;
	}
	memset(&a, 0, sizeof(a));
	a.curl = run->curl;
	a.sink = sink;
	a.gzipped = &run->gzipped;
	pbuf_reset(a.gzipped);
	pbuf_init(&a.body, K8S_MAX_PAGE);
	run->errbuf[0] = '\0';
	curl_easy_setopt(run->curl, CURLOPT_URL, url);
	curl_easy_setopt(run->curl, CURLOPT_WRITEDATA, &a);
	curl_easy_setopt(run->curl, CURLOPT_HEADERDATA, &a);
	left = http_limit_ms(left, 0);
	http_set_timeout(run->curl, left);
	rc = curl_easy_perform(run->curl);
	run->requests++;
	if (rc != CURLE_OK) {
		const char *why = run->errbuf[0] ? run->errbuf : curl_easy_strerror(rc);

		if (rc == CURLE_WRITE_ERROR && a.stopped)
			k8s_nomem(run);
		else if (rc == CURLE_WRITE_ERROR && a.encoding[0] != '\0')
			run->host->fail(run->call, "GET %s: the answer's Content-Encoding is \"%s\"; "
			                           "only gzip was asked for",
			                url, a.encoding);
		else if (rc == CURLE_WRITE_ERROR && media_not_json(a.type))
			run->host->fail(run->call, "GET %s: HTTP %ld%s: the server answered %s, not JSON",
			                url, a.code, http_reason(a.code), a.type);
		else if (rc == CURLE_WRITE_ERROR && a.overflow)
			run->host->fail(run->call, "GET %s: the answer is larger than %zu MiB", url,
			                K8S_MAX_PAGE >> 20);
		else if (rc == CURLE_OPERATION_TIMEDOUT)
			run->host->fail(run->call, "GET %s: no answer within the entry's time budget "
			                           "(%ld ms left): %s",
			                url, left, why);
		else if (http_tls_error(rc))
			run->host->fail(run->call, "GET %s: TLS failed (credentials from %s): %s", url,
			                run->conn.source, why);
		else
			run->host->fail(run->call, "GET %s: %s", url, why);
		goto out;
	}
	curl_easy_getinfo(run->curl, CURLINFO_RESPONSE_CODE, code);
	if (a.gzip && decode(run, &a, url, *code) != MUSTER_STATUS_SUCCESS)
		goto out;
	if (*code != 200 && *code != 410) {
		fail_status(run, url, *code, a.type, &a.body);
		goto out;
	}
	st = MUSTER_STATUS_SUCCESS;
out:
	free(url);
	pbuf_free(&a.body);
	return st;
}

muster_status k8s_http_get_buf(struct k8s_run *run, const char *path, struct pbuf *out,
                               long *code)
{
	struct k8s_sink sink = { body_room, body_wrote, out };

	/* As large as a page may be: http.c's own bound words the refusal. */
	pbuf_init(out, K8S_MAX_PAGE);
	return k8s_http_get(run, path, &sink, code);
}
