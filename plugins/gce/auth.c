/*
 * gce: credentials, in the order Google's own libraries use (google-auth's
 * default()):
 *   1. the `access_token_file` option: a token somebody else refreshes,
 *      read again on every resolve;
 *   2. a key file: the `credentials_file` option, else
 *      $GOOGLE_APPLICATION_CREDENTIALS, else gcloud's well-known file
 *      ($CLOUDSDK_CONFIG or ~/.config/gcloud, application_default_credentials.json):
 *        "service_account": an RS256-signed JWT exchanged at the key's
 *                           token_uri (jwt.c);
 *        "authorized_user": its refresh token exchanged at token_uri;
 *   3. on GCE, the metadata server's default service-account token.
 * Not on GCE with none of them: notfound.
 *
 * Tokens from 2 and 3 are cached in the state until GCE_REFRESH_MARGIN_S
 * (or half their life, when shorter) before they expire, keyed by their
 * source.  The cache's mutex is held while a token is fetched, so threads
 * resolving at once fetch it once; a 401 from the API drops it.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gce.h"
#include "lib/clock.h"
#include "lib/env.h"

enum source_kind { SRC_NONE, SRC_TOKEN_FILE, SRC_KEY_FILE, SRC_METADATA };

static void wipe_free(char *s)
{
	if (s != NULL) {
		memset(s, 0, strlen(s));
		free(s);
	}
}

/* One token: printable, no spaces; `what` names where it came from. */
static int token_ok(const char *t)
{
	if (t == NULL || t[0] == '\0')
		return 0;
	for (; *t; t++)
		if ((unsigned char)*t <= 0x20 || (unsigned char)*t >= 0x7f)
			return 0;
	return 1;
}

static muster_status read_token_file(struct gce_run *run, const char *path)
{
	char *data, eb[128];
	size_t len;

	if (plugin_read_file(path, GCE_MAX_FILE, &data, &len) != 0)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "cannot read access_token_file %s: %s", path,
		                     plugin_strerror(errno, eb, sizeof(eb)));
	while (len > 0 && (data[len - 1] == '\n' || data[len - 1] == '\r' || data[len - 1] == ' '))
		data[--len] = '\0';
	if (!token_ok(data)) {
		run->host->fail(run->call, "access_token_file %s does not hold one access token",
		                path);
		wipe_free(data);
		return MUSTER_STATUS_UNAVAIL;
	}
	run->token = data;
	return MUSTER_STATUS_SUCCESS;
}

/* The key file to use, or NULL. */
static char *key_file(const struct gce_conf *conf)
{
	const char *p, *dir;

	if (conf->credentials_file != NULL)
		return strdup(conf->credentials_file);
	if ((p = env_get("GOOGLE_APPLICATION_CREDENTIALS")) != NULL && p[0] != '\0')
		return strdup(p);
	if ((dir = env_get("CLOUDSDK_CONFIG")) != NULL && dir[0] != '\0') {
		char *f = plugin_asprintf("%s/application_default_credentials.json", dir);

		if (f != NULL && access(f, F_OK) == 0)
			return f;
		free(f);
		return NULL;
	}
	if ((dir = env_get("HOME")) != NULL && dir[0] != '\0') {
		char *f = plugin_asprintf("%s/.config/gcloud/application_default_credentials.json", dir);

		if (f != NULL && access(f, F_OK) == 0)
			return f;
		free(f);
	}
	return NULL;
}

static char *form_escape(CURL *h, const char *s)
{
	return curl_easy_escape(h, s, 0);
}

/* The token endpoint's {"access_token", "expires_in"}; token into run. */
static muster_status take_token(struct gce_run *run, const char *what, struct pbuf *b,
                                long *expires_in)
{
	cJSON *root = gce_json_parse(run, what, b), *e;
	const char *t;

	if (root == NULL)
		return MUSTER_STATUS_UNAVAIL;
	t = gce_json_str(root, "access_token");
	e = cJSON_GetObjectItemCaseSensitive(root, "expires_in");
	if (!token_ok(t)) {
		run->host->fail(run->call, "%s: the answer has no access_token", what);
		cJSON_Delete(root);
		return MUSTER_STATUS_UNAVAIL;
	}
	*expires_in = cJSON_IsNumber(e) && e->valuedouble > 0 && e->valuedouble < 1e7
	                  ? (long)e->valuedouble
	                  : 3600; /* RFC 6749: absent means unknown; Google's is an hour */
	run->token = strdup(t);
	memset(cJSON_GetObjectItemCaseSensitive(root, "access_token")->valuestring, 0, strlen(t));
	cJSON_Delete(root);
	return run->token != NULL ? MUSTER_STATUS_SUCCESS : gce_nomem(run);
}

static muster_status post_form(struct gce_run *run, const char *what, const char *uri,
                               char *form, long *expires_in)
{
	struct pbuf b;
	muster_status st;
	long code;

	pbuf_init(&b, GCE_MAX_SMALL);
	st = gce_http(run, what, "POST", uri, form, GCE_REQ_FORM, 0, &b, &code);
	wipe_free(form);
	if (st == MUSTER_STATUS_SUCCESS)
		st = take_token(run, what, &b, expires_in);
	pbuf_wipe(&b);
	return st;
}

static int https_or_loopback(const char *uri)
{
	return strncmp(uri, "https://", 8) == 0 || strncmp(uri, "http://127.", 11) == 0 ||
	       strncmp(uri, "http://[::1]", 12) == 0 || strncmp(uri, "http://localhost", 16) == 0;
}

static muster_status from_key_file(struct gce_run *run, const char *path, long *expires_in)
{
	char *data = NULL, *form = NULL, *jwt = NULL, what[400], eb[128];
	const char *type, *uri, *why = NULL;
	muster_status st = MUSTER_STATUS_UNAVAIL;
	cJSON *root;
	size_t len;

	if (plugin_read_file(path, GCE_MAX_FILE, &data, &len) != 0)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "cannot read the credentials file %s: %s", path,
		                     plugin_strerror(errno, eb, sizeof(eb)));
	root = cJSON_ParseWithLength(data, len);
	memset(data, 0, len);
	free(data);
	if (!cJSON_IsObject(root)) {
		run->host->fail(run->call, "credentials file %s is not a JSON object", path);
		cJSON_Delete(root);
		return MUSTER_STATUS_UNAVAIL;
	}
	type = gce_json_str(root, "type");
	uri = gce_json_str(root, "token_uri");
	if (uri == NULL || uri[0] == '\0')
		uri = GCE_DEFAULT_TOKEN_URI;
	snprintf(what, sizeof(what), "token endpoint (%s credentials from %s)",
	         type != NULL ? type : "?", path);
	if (!https_or_loopback(uri)) {
		run->host->fail(run->call, "credentials file %s: token_uri %s is neither https:// nor "
		                           "loopback; refusing to send credentials there",
		                path, uri);
		goto out;
	}
	if (type != NULL && strcmp(type, "service_account") == 0) {
		const char *email = gce_json_str(root, "client_email");
		const char *key = gce_json_str(root, "private_key");

		if (email == NULL || key == NULL) {
			run->host->fail(run->call, "service-account key %s lacks %s", path,
			                email == NULL ? "client_email" : "private_key");
			goto out;
		}
		jwt = gce_jwt(email, key, gce_json_str(root, "private_key_id"), GCE_SCOPE, uri,
		              clock_wall_s(), &why);
		if (jwt == NULL) {
			run->host->fail(run->call, "service-account key %s: %s", path, why);
			goto out;
		}
		form = plugin_asprintf("grant_type=urn%%3Aietf%%3Aparams%%3Aoauth%%3Agrant-type%%3A"
		                    "jwt-bearer&assertion=%s",
		                    jwt); /* base64url and '.': nothing to escape */
		wipe_free(jwt);
	} else if (type != NULL && strcmp(type, "authorized_user") == 0) {
		const char *id = gce_json_str(root, "client_id");
		const char *secret = gce_json_str(root, "client_secret");
		const char *refresh = gce_json_str(root, "refresh_token");
		char *eid, *esecret, *erefresh;

		if (id == NULL || secret == NULL || refresh == NULL) {
			run->host->fail(run->call, "authorized-user credentials %s lack %s", path,
			                id == NULL ? "client_id"
			                : secret == NULL ? "client_secret" : "refresh_token");
			goto out;
		}
		eid = form_escape(run->curl, id);
		esecret = form_escape(run->curl, secret);
		erefresh = form_escape(run->curl, refresh);
		if (eid != NULL && esecret != NULL && erefresh != NULL)
			form = plugin_asprintf("grant_type=refresh_token&client_id=%s&client_secret=%s"
			                    "&refresh_token=%s",
			                    eid, esecret, erefresh);
		if (esecret != NULL)
			memset(esecret, 0, strlen(esecret));
		if (erefresh != NULL)
			memset(erefresh, 0, strlen(erefresh));
		curl_free(eid);
		curl_free(esecret);
		curl_free(erefresh);
	} else {
		run->host->fail(run->call, "credentials file %s: type \"%s\" is not supported "
		                           "(service_account or authorized_user)",
		                path, type != NULL ? type : "(none)");
		goto out;
	}
	if (form == NULL) {
		st = gce_nomem(run);
		goto out;
	}
	st = post_form(run, what, uri, form, expires_in);
out:
	{ /* the private key and secrets leave memory with the tree */
		cJSON *it;

		cJSON_ArrayForEach(it, root)
		{
			if (cJSON_IsString(it))
				memset(it->valuestring, 0, strlen(it->valuestring));
		}
	}
	cJSON_Delete(root);
	return st;
}

static muster_status from_metadata(struct gce_run *run, long *expires_in)
{
	struct pbuf b;
	muster_status st;

	pbuf_init(&b, GCE_MAX_SMALL);
	st = gce_metadata_get(run, "instance/service-accounts/default/token", 0, &b);
	if (st == MUSTER_STATUS_SUCCESS)
		st = take_token(run, "metadata server (default service-account token)", &b,
		                expires_in);
	pbuf_wipe(&b);
	return st;
}

muster_status gce_auth(struct gce_run *run)
{
	struct gce_conf *conf = run->conf;
	struct gce_cache *c = &conf->cache;
	enum source_kind kind;
	char *path = NULL;
	long expires_in = 0;
	muster_status st;

	wipe_free(run->token);
	run->token = NULL;
	if (conf->access_token_file != NULL) {
		snprintf(run->token_source, sizeof(run->token_source), "access_token_file %s",
		         conf->access_token_file);
		return read_token_file(run, conf->access_token_file);
	}
	if ((path = key_file(conf)) != NULL) {
		kind = SRC_KEY_FILE;
		snprintf(run->token_source, sizeof(run->token_source), "credentials file %s", path);
	} else if (run->on_gce != 0) {
		kind = SRC_METADATA;
		snprintf(run->token_source, sizeof(run->token_source),
		         "the metadata server's default service account");
	} else {
		run->host->fail(run->call,
		                "no credentials: no access_token_file or credentials_file, "
		                "GOOGLE_APPLICATION_CREDENTIALS is not set, no gcloud "
		                "application-default credentials, and not on GCE");
		return MUSTER_STATUS_NOTFOUND;
	}

	pthread_mutex_lock(&c->lock);
	if (c->token != NULL && c->token_source != NULL &&
	    strcmp(c->token_source, run->token_source) == 0 &&
	    clock_now_ms() / 1000 < c->token_expiry) {
		run->token = strdup(c->token);
		pthread_mutex_unlock(&c->lock);
		free(path);
		run->token_cached = 1;
		return run->token != NULL ? MUSTER_STATUS_SUCCESS : gce_nomem(run);
	}
	/* Fetched with the lock held: concurrent resolves wait for this one
	 * token instead of each fetching their own. */
	st = kind == SRC_KEY_FILE ? from_key_file(run, path, &expires_in)
	                          : from_metadata(run, &expires_in);
	if (st == MUSTER_STATUS_SUCCESS) {
		long margin = expires_in / 2 < GCE_REFRESH_MARGIN_S ? expires_in / 2
		                                                    : GCE_REFRESH_MARGIN_S;
		char *t = strdup(run->token), *s = strdup(run->token_source);

		if (t != NULL && s != NULL) {
			wipe_free(c->token);
			free(c->token_source);
			c->token = t;
			c->token_source = s;
			c->token_expiry = clock_now_ms() / 1000 + expires_in - margin;
		} else {
			wipe_free(t);
			free(s);
		}
		run->token_cached = 0;
		run->host->log(conf->pc, MUSTER_LOG_DEBUG, "access token from %s, valid for %ld s",
		               run->token_source, expires_in);
	}
	pthread_mutex_unlock(&c->lock);
	free(path);
	return st;
}

/* Forgets the cached token (after a 401). */
static void gce_auth_forget(struct gce_run *run)
{
	struct gce_cache *c = &run->conf->cache;

	pthread_mutex_lock(&c->lock);
	if (c->token != NULL && run->token != NULL && strcmp(c->token, run->token) == 0) {
		wipe_free(c->token);
		c->token = NULL;
	}
	pthread_mutex_unlock(&c->lock);
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
		run->host->log(run->conf->pc, MUSTER_LOG_NOTICE,
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
