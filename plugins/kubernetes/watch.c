/*
 * kubernetes: watch().  For each selector of every job, a one-item list
 * gives a resourceVersion and a watch stream starts from it (bookmarks
 * on, the same namespace and selector as resolve(), a server-side
 * timeout renewed when it ends).  Every stream sits on one curl multi
 * handle polled together with the stop fd.  An event that changes what
 * resolve() reads of a pod reports a change; 410 Gone lists again and
 * reports one (what happened in the gap is unknown); a dropped stream
 * resumes from its last resourceVersion after a backoff.  Events are
 * read line by line through a bounded buffer, so memory stays flat.  The
 * stop fd is watched during a listing too (curl's progress callback), so
 * a stop never waits for a slow server's answer.  Each listing after 410
 * is a resync and each broken stream a reconnect, for the watch's
 * observer (ABI 1.8's watch_event).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "lib/clock.h"
#include "plugins/common/watchhost.h"
#include "k8s.h"

#define K8S_WATCH_MAX_LINE ((size_t)4 * 1024 * 1024) /* one event: one pod */
#define K8S_WATCH_SERVER_S 300      /* timeoutSeconds: the server ends the stream */
#define K8S_WATCH_SLACK_MS 30000    /* ... and the client gives it this much more */
#define K8S_WATCH_CONNECT_MS 10000
#define K8S_WATCH_LIST_MS 10000     /* the budget of a listing */
#define K8S_BACKOFF_MIN_MS 100
#define K8S_BACKOFF_MAX_MS 2000
/* A stream that lived this long was healthy: the next one starts at once
 * and its backoff starts over.  A shorter one (a proxy that answers a
 * watch with 200 and closes, 410 Gone right after the listing) backs off,
 * so requests stay bounded. */
#define K8S_HEALTHY_MS 1000
#define K8S_MAX_ERROR_BODY ((size_t)64 * 1024)

/* A pod last seen: hashes of its namespace/name and of the fields
 * resolve() reads.  key 0: a free slot. */
struct seen {
	uint64_t key, print;
};

struct k8s_watch;

/* One selector's stream. */
struct stream {
	struct k8s_watch *kw;
	const char *selector;
	CURL *curl;            /* NULL: not running */
	char rv[128];          /* where to resume; "": a listing first */
	int listed;            /* listed once: a later listing reports a change */
	int open;              /* HTTP 200 seen on the current request */
	int relist;            /* 410 Gone seen */
	int broken;            /* an event that cannot be read */
	long code;
	long long started_ms;  /* when the current request began */
	long long due_ms;      /* not running: when to start again */
	struct backoff backoff;
	char errbuf[CURL_ERROR_SIZE];
	struct pbuf line;      /* the event being received */
	struct pbuf body;      /* an error answer */
	struct seen *seen;
	size_t nseen, cap;
};

struct k8s_watch {
	struct k8s_run run;    /* its call is the host's call for the watch */
	const muster_host *host;
	muster_watcher *w;
	struct curl_slist *headers;
	CURLM *multi;
	struct stream *s;
	size_t n;
	int armed;
};

/* curl's progress callback on the listing's handle: nonzero aborts the
 * transfer, so a stop is seen within about a second (curl calls it at
 * least that often) rather than after the listing's budget. */
static int stop_listing(void *data, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                        curl_off_t ulnow)
{
	const struct k8s_watch *kw = data;

	(void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
	return watch_stopping(kw->host, kw->w, 0);
}

/* fail() on the watch's call: logged, unless the watch is stopping (a
 * listing aborted by the stop is no failure). */
static void watch_failed(void *data, const char *reason)
{
	const struct k8s_watch *kw = data;

	if (!watch_stopping(kw->host, kw->w, 0))
		kw->host->log(kw->run.conf->pc, MUSTER_LOG_WARNING, "watch: %s", reason);
}

static uint64_t fnv(uint64_t h, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211u;
	return h;
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
	return fnv(h, s ? s : "", s ? strlen(s) + 1 : 0); /* absent differs from "" */
}

static uint64_t fnv_json(uint64_t h, const cJSON *j)
{
	char *p = j ? cJSON_PrintUnformatted(j) : NULL;

	h = fnv_str(h, p);
	free(p);
	return h;
}

/* The seen set: open addressing, linear probing, deletion by shifting. */
static size_t slot_of(const struct stream *s, uint64_t key)
{
	size_t i = (size_t)(key % s->cap);

	while (s->seen[i].key != 0 && s->seen[i].key != key)
		i = (i + 1) % s->cap;
	return i;
}

static void seen_clear(struct stream *s)
{
	free(s->seen);
	s->seen = NULL;
	s->nseen = s->cap = 0;
}

/* 1: new or different; 0: the same; -1: no memory. */
static int seen_put(struct stream *s, uint64_t key, uint64_t print)
{
	if (2 * (s->nseen + 1) > s->cap) {
		struct seen *old = s->seen;
		size_t ocap = s->cap, cap = ocap ? 2 * ocap : 64;

		if ((s->seen = calloc(cap, sizeof(*s->seen))) == NULL) {
			s->seen = old;
			return -1;
		}
		s->cap = cap;
		for (size_t i = 0; i < ocap; i++)
			if (old[i].key != 0)
				s->seen[slot_of(s, old[i].key)] = old[i];
		free(old);
	}
	size_t i = slot_of(s, key);
	if (s->seen[i].key == key && s->seen[i].print == print)
		return 0;
	if (s->seen[i].key == 0)
		s->nseen++;
	s->seen[i] = (struct seen){ key, print };
	return 1;
}

static void seen_del(struct stream *s, uint64_t key)
{
	if (s->cap == 0)
		return;
	size_t i = slot_of(s, key), j = i;
	if (s->seen[i].key == 0)
		return;
	s->seen[i].key = 0;
	s->nseen--;
	for (;;) {
		j = (j + 1) % s->cap;
		if (s->seen[j].key == 0)
			return;
		size_t home = (size_t)(s->seen[j].key % s->cap);
		/* Moves back an entry whose home is not between i and j. */
		if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) {
			s->seen[i] = s->seen[j];
			s->seen[j].key = 0;
			i = j;
		}
	}
}

static const char *str_at(const cJSON *o, const char *a, const char *b)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);

	x = b ? cJSON_GetObjectItemCaseSensitive(x, b) : x;
	return cJSON_IsString(x) ? x->valuestring : NULL;
}

static void changed(struct k8s_watch *kw)
{
	kw->host->watch_changed(kw->w);
}

/* One event of a stream.  0, or -1 to end the stream. */
static int on_event(struct stream *s, const char *p, size_t len)
{
	struct k8s_watch *kw = s->kw;
	cJSON *ev = cJSON_ParseWithLength(p, len);
	const char *type = str_at(ev, "type", NULL);
	const cJSON *obj = cJSON_GetObjectItemCaseSensitive(ev, "object");
	const char *rv = str_at(obj, "metadata", "resourceVersion");
	int rc = 0;

	if (type == NULL || !cJSON_IsObject(obj)) {
		kw->host->log(kw->run.conf->pc, MUSTER_LOG_WARNING,
		              "watch of \"%s\": an event that is not {type, object}; reconnecting",
		              s->selector);
		s->broken = 1;
		cJSON_Delete(ev);
		return -1;
	}
	if (strcmp(type, "ERROR") == 0) {
		const cJSON *code = cJSON_GetObjectItemCaseSensitive(obj, "code");
		const char *msg = str_at(obj, "message", NULL);

		if (cJSON_IsNumber(code) && code->valuedouble == 410)
			s->relist = 1;
		else
			kw->host->log(kw->run.conf->pc, MUSTER_LOG_NOTICE, "watch of \"%s\": %s",
			              s->selector, msg ? msg : "an ERROR event");
		rc = -1;
	} else if (strcmp(type, "ADDED") == 0 || strcmp(type, "MODIFIED") == 0 ||
	           strcmp(type, "DELETED") == 0) {
		const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
		const cJSON *status = cJSON_GetObjectItemCaseSensitive(obj, "status");
		const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
		uint64_t key = fnv_str(fnv_str(14695981039346656037u, str_at(meta, "namespace", NULL)),
		                       str_at(meta, "name", NULL));
		uint64_t print = 14695981039346656037u;

		key += key == 0;
		if (type[0] == 'D') {
			seen_del(s, key);
			changed(kw);
		} else {
			print = fnv_str(print, str_at(status, "phase", NULL));
			print = fnv_str(print, str_at(status, "podIP", NULL));
			print = fnv_str(print, str_at(status, "hostIP", NULL));
			print = fnv_str(print, str_at(meta, "deletionTimestamp", NULL));
			print = fnv_json(print, cJSON_GetObjectItemCaseSensitive(meta, "labels"));
			print = fnv_json(print, cJSON_GetObjectItemCaseSensitive(spec, "containers"));
			print = fnv_json(print, cJSON_GetObjectItemCaseSensitive(spec, "initContainers"));
			if (seen_put(s, key, print) != 0 || type[0] == 'A')
				changed(kw);
		}
	}
	/* A BOOKMARK only moves the resourceVersion on. */
	if (rv != NULL && strlen(rv) < sizeof(s->rv))
		strcpy(s->rv, rv);
	cJSON_Delete(ev);
	return rc;
}

static size_t on_header(char *p, size_t size, size_t n, void *data)
{
	struct stream *s = data;

	if (size * n == 2 && p[0] == '\r' && p[1] == '\n') {
		curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &s->code);
		s->open = s->code == 200;
	}
	return size * n;
}

static size_t on_write(char *p, size_t size, size_t n, void *data)
{
	struct stream *s = data;
	size_t len = size * n, done = 0;

	if (!s->open) {
		if (s->body.len + len <= K8S_MAX_ERROR_BODY)
			pbuf_append(&s->body, p, len);
		return len;
	}
	while (done < len) {
		const char *nl = memchr(p + done, '\n', len - done);
		size_t take = nl ? (size_t)(nl - (p + done)) : len - done;

		if (pbuf_append(&s->line, p + done, take) < 0) {
			s->kw->host->log(s->kw->run.conf->pc, MUSTER_LOG_WARNING,
			                 "watch of \"%s\": an event larger than %zu MiB; reconnecting",
			                 s->selector, K8S_WATCH_MAX_LINE >> 20);
			s->broken = 1;
			return 0;
		}
		done += take;
		if (nl == NULL)
			break;
		done++;
		if (s->line.len > 0 && on_event(s, s->line.data, s->line.len) < 0)
			return 0;
		pbuf_reset(&s->line);
	}
	return len;
}

static char *body_room(void *ctx, size_t n)
{
	return pbuf_room(ctx, n);
}

static void body_wrote(void *ctx, size_t n)
{
	pbuf_wrote(ctx, n);
}

/* The selector's resourceVersion from a one-item listing. */
static int list_rv(struct k8s_watch *kw, struct stream *s)
{
	struct k8s_run *run = &kw->run;
	struct pbuf body;
	struct k8s_sink sink = { body_room, body_wrote, &body };
	char *base = k8s_pods_path(run, s->selector), *path;
	long code = 0;
	int rc = -1;

	pbuf_init(&body, K8S_MAX_PAGE);
	path = base ? plugin_asprintf("%s&limit=1", base) : NULL;
	free(base);
	if (path == NULL) {
		k8s_nomem(run);
		return -1;
	}
	if (k8s_http_get(run, path, &sink, &code) == MUSTER_STATUS_SUCCESS && code == 200) {
		cJSON *list = cJSON_ParseWithLength(body.data ? body.data : "", body.len);
		const char *rv = str_at(cJSON_GetObjectItemCaseSensitive(list, "metadata"),
		                        "resourceVersion", NULL);

		if (rv != NULL && rv[0] != '\0' && strlen(rv) < sizeof(s->rv)) {
			strcpy(s->rv, rv);
			rc = 0;
		} else {
			kw->host->fail(run->call, "GET %s: no metadata.resourceVersion", path);
		}
		cJSON_Delete(list);
	}
	free(path);
	pbuf_free(&body);
	return rc;
}

/* Lists if needed, then starts the stream.  0, or -1 (retried later). */
static int stream_start(struct k8s_watch *kw, struct stream *s)
{
	char *base, *url;

	if (s->rv[0] == '\0') {
		seen_clear(s);
		if (list_rv(kw, s) < 0)
			return -1;
		if (s->listed) {
			/* Listed afresh (410 Gone): a resync, for the metrics. */
			muster_plugin_watch_event(kw->host, kw->w, MUSTER_WATCH_EVENT_RESYNC);
			changed(kw);
		}
		s->listed = 1;
	}
	base = k8s_pods_path(&kw->run, s->selector);
	url = base ? plugin_asprintf("%s%s&watch=1&allowWatchBookmarks=true&resourceVersion=%s"
	                             "&timeoutSeconds=%d",
	                             kw->run.conn.server, base, s->rv, K8S_WATCH_SERVER_S)
	           : NULL;
	free(base);
	if (url == NULL || (s->curl = curl_easy_duphandle(kw->run.curl)) == NULL) {
		free(url);
		k8s_nomem(&kw->run);
		return -1;
	}
	s->open = s->relist = s->broken = 0;
	s->code = 0;
	s->started_ms = clock_now_ms();
	s->errbuf[0] = '\0';
	pbuf_reset(&s->line);
	pbuf_reset(&s->body);
	curl_easy_setopt(s->curl, CURLOPT_URL, url);
	curl_easy_setopt(s->curl, CURLOPT_HTTPHEADER, kw->headers);
	curl_easy_setopt(s->curl, CURLOPT_ERRORBUFFER, s->errbuf);
	/* The multi's poll watches the stop fd for streams. */
	curl_easy_setopt(s->curl, CURLOPT_NOPROGRESS, 1L);
	curl_easy_setopt(s->curl, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(s->curl, CURLOPT_HEADERDATA, s);
	curl_easy_setopt(s->curl, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(s->curl, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(s->curl, CURLOPT_CONNECTTIMEOUT_MS, (long)K8S_WATCH_CONNECT_MS);
	curl_easy_setopt(s->curl, CURLOPT_TIMEOUT_MS,
	                 (long)K8S_WATCH_SERVER_S * 1000 + K8S_WATCH_SLACK_MS);
	free(url);
	if (curl_multi_add_handle(kw->multi, s->curl) != CURLM_OK) {
		curl_easy_cleanup(s->curl);
		s->curl = NULL;
		return -1;
	}
	return 0;
}

static void stream_stop(struct k8s_watch *kw, struct stream *s)
{
	if (s->curl == NULL)
		return;
	curl_multi_remove_handle(kw->multi, s->curl);
	curl_easy_cleanup(s->curl);
	s->curl = NULL;
}

static void retry_later(struct stream *s, long long now)
{
	long wait = backoff_step(&s->backoff);

	/* Jitter, so that many watchers do not return together. */
	s->due_ms = now + wait / 2 + rand() % (wait / 2 + 1);
}

/* A stream ended: when and how it starts again. */
static void stream_done(struct k8s_watch *kw, struct stream *s, CURLcode rc)
{
	long long now = clock_now_ms();
	int healthy = now - s->started_ms >= K8S_HEALTHY_MS;

	stream_stop(kw, s);
	if (s->open && healthy)
		s->backoff = (struct backoff){ K8S_BACKOFF_MIN_MS, K8S_BACKOFF_MAX_MS };
	if (s->relist || s->code == 410) {
		s->rv[0] = '\0';
		if (healthy)
			s->due_ms = now;
		else
			retry_later(s, now);
		return;
	}
	if (rc == CURLE_OK && s->code == 200 && !s->broken && healthy) {
		s->due_ms = now; /* the server's timeout: renewed at once */
		return;
	}
	if (s->code != 0 && s->code != 200) {
		cJSON *st = cJSON_ParseWithLength(s->body.data ? s->body.data : "", s->body.len);
		const char *msg = str_at(st, "message", NULL);

		kw->host->log(kw->run.conf->pc, MUSTER_LOG_WARNING, "watch of \"%s\": HTTP %ld%s%s",
		              s->selector, s->code, msg ? ": " : "", msg ? msg : "");
		cJSON_Delete(st);
	} else if (rc != CURLE_OK && !s->broken) {
		kw->host->log(kw->run.conf->pc, MUSTER_LOG_NOTICE, "watch of \"%s\" dropped: %s",
		              s->selector, s->errbuf[0] ? s->errbuf : curl_easy_strerror(rc));
	}
	/* The stream broke (not the server's timeout, not 410): it opens
	 * again after the backoff, a reconnect for the metrics. */
	muster_plugin_watch_event(kw->host, kw->w, MUSTER_WATCH_EVENT_RECONNECT);
	retry_later(s, now);
}

static int all_open(const struct k8s_watch *kw)
{
	for (size_t i = 0; i < kw->n; i++)
		if (!kw->s[i].open)
			return 0;
	return 1;
}

/* Starts the streams that are due.  -1 when one fails before the watch
 * armed (the core then polls). */
static int start_due(struct k8s_watch *kw)
{
	for (size_t i = 0; i < kw->n; i++) {
		struct stream *s = &kw->s[i];

		if (s->curl != NULL || s->due_ms > clock_now_ms())
			continue;
		if (stream_start(kw, s) < 0) {
			if (!kw->armed)
				return -1;
			retry_later(s, clock_now_ms());
		}
	}
	return 0;
}

/* The streams that ended.  -1 when one failed before the watch armed. */
static int reap_done(struct k8s_watch *kw)
{
	CURLMsg *m;
	int left;

	while ((m = curl_multi_info_read(kw->multi, &left)) != NULL) {
		if (m->msg != CURLMSG_DONE)
			continue;
		for (size_t i = 0; i < kw->n; i++)
			if (kw->s[i].curl == m->easy_handle) {
				int failed = !kw->armed && !kw->s[i].open;

				stream_done(kw, &kw->s[i], m->data.result);
				if (failed)
					return -1;
				break;
			}
	}
	return 0;
}

/* How long the poll may sleep: until the first stopped stream is due
 * (computed after reaping, so a stream renewed at once is not left
 * waiting), at most a second. */
static int poll_wait_ms(const struct k8s_watch *kw)
{
	long long now = clock_now_ms(), wait = 1000;

	for (size_t i = 0; i < kw->n; i++)
		if (kw->s[i].curl == NULL && kw->s[i].due_ms - now < wait)
			wait = kw->s[i].due_ms - now > 0 ? kw->s[i].due_ms - now : 0;
	return (int)wait;
}

/* Until the stop fd is readable.  -1 when the first start fails (the
 * core then polls). */
static int watch_loop(struct k8s_watch *kw)
{
	struct curl_waitfd stop = { kw->host->watch_stop_fd(kw->w), CURL_WAIT_POLLIN, 0 };
	int running;

	for (;;) {
		if (start_due(kw) < 0)
			return -1;
		curl_multi_perform(kw->multi, &running);
		if (reap_done(kw) < 0)
			return -1;
		if (!kw->armed && all_open(kw)) {
			kw->armed = 1;
			kw->host->watch_armed(kw->w);
		}
		stop.revents = 0;
		if (curl_multi_poll(kw->multi, &stop, 1, poll_wait_ms(kw), NULL) != CURLM_OK)
			return -1;
		if (stop.revents & CURL_WAIT_POLLIN)
			return 0;
	}
}

static int headers_setup(struct k8s_watch *kw)
{
	const char *token = kw->run.conn.token;
	struct curl_slist *l = curl_slist_append(NULL, "Accept: application/json");

	kw->headers = l;
	if (l != NULL && token != NULL) {
		char *auth = plugin_asprintf("Authorization: Bearer %s", token);

		l = auth ? curl_slist_append(kw->headers, auth) : NULL;
		if (auth != NULL)
			memset(auth, 0, strlen(auth));
		free(auth);
		if (l != NULL)
			kw->headers = l;
	}
	return l != NULL ? 0 : -1;
}

int k8s_watch(void *state, const muster_host *host, muster_plugin_ctx *pc, muster_watcher *w)
{
	const struct k8s_conf *conf = state;
	struct k8s_watch kw;
	size_t n = 0;
	int rc = -1;

	if (conf->mode == K8S_MODE_INDEXED_JOB)
		return k8s_indexed_watch(conf, host, pc, w);
	memset(&kw, 0, sizeof(kw));
	kw.host = host;
	kw.w = w;
	kw.run.host = host;
	kw.run.conf = conf;
	/* Each listing gets the watch call's budget. */
	if ((kw.run.call = watch_call_open(host, pc, K8S_WATCH_LIST_MS, watch_failed, &kw)) == NULL)
		return -1;
	for (size_t j = 0; j < conf->njobs; j++)
		n += conf->jobs[j].nselectors;
	if (k8s_connect(&kw.run) != MUSTER_STATUS_SUCCESS ||
	    k8s_http_setup(&kw.run) != MUSTER_STATUS_SUCCESS)
		goto out;
	curl_easy_setopt(kw.run.curl, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(kw.run.curl, CURLOPT_XFERINFOFUNCTION, stop_listing);
	curl_easy_setopt(kw.run.curl, CURLOPT_XFERINFODATA, &kw);
	if ((kw.s = calloc(n ? n : 1, sizeof(*kw.s))) == NULL || headers_setup(&kw) < 0 ||
	    (kw.multi = curl_multi_init()) == NULL) {
		k8s_nomem(&kw.run);
		goto out;
	}
	for (size_t j = 0; j < conf->njobs; j++)
		for (size_t k = 0; k < conf->jobs[j].nselectors; k++) {
			struct stream *s = &kw.s[kw.n++];

			s->kw = &kw;
			s->selector = conf->jobs[j].selectors[k];
			s->backoff = (struct backoff){ K8S_BACKOFF_MIN_MS, K8S_BACKOFF_MAX_MS };
			pbuf_init(&s->line, K8S_WATCH_MAX_LINE);
			pbuf_init(&s->body, K8S_MAX_ERROR_BODY);
		}
	rc = watch_loop(&kw);
out:
	for (size_t i = 0; i < kw.n; i++) {
		stream_stop(&kw, &kw.s[i]);
		pbuf_free(&kw.s[i].line);
		pbuf_free(&kw.s[i].body);
		seen_clear(&kw.s[i]);
	}
	free(kw.s);
	if (kw.multi != NULL)
		curl_multi_cleanup(kw.multi);
	if (kw.headers != NULL) {
		for (struct curl_slist *l = kw.headers; l != NULL; l = l->next)
			memset(l->data, 0, strlen(l->data));
		curl_slist_free_all(kw.headers);
	}
	k8s_http_cleanup(&kw.run);
	k8s_conn_clear(&kw.run.conn);
	host->watch_call_end(kw.run.call);
	return rc;
}
