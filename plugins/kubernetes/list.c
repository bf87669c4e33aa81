/*
 * kubernetes: the paged listing of a job's pods.
 *
 * For each of the job's label selectors, in the configured order:
 *   GET /api/v1/namespaces/NS/pods?labelSelector=SEL&limit=N[&continue=T]
 * (or /api/v1/pods with all_namespaces), following `continue` tokens.  A
 * 410 Gone means the continue token expired (the API server compacted its
 * history): that selector's listing starts again from the beginning.
 * Each page is walked as soon as it has arrived (podlist.c), while the next
 * one is fetched, so only the pods' compact records outlive it.
 */
#include <config.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_page.h"
#include "k8s.h"

const char *k8s_namespace(const struct k8s_run *run)
{
	if (run->conf->namespace != NULL)
		return run->conf->namespace;
	if (run->conn.namespace != NULL)
		return run->conn.namespace;
	return "default";
}

char *k8s_pods_path(struct k8s_run *run, const char *sel)
{
	char *esel = curl_easy_escape(run->curl, sel, 0);
	char *ens = NULL, *path = NULL;

	if (esel == NULL)
		goto out;
	if (run->conf->all_namespaces)
		path = plugin_asprintf("/api/v1/pods?labelSelector=%s", esel);
	else if ((ens = curl_easy_escape(run->curl, k8s_namespace(run), 0)) != NULL)
		path = plugin_asprintf("/api/v1/namespaces/%s/pods?labelSelector=%s", ens, esel);
out:
	curl_free(esel);
	curl_free(ens);
	return path;
}

static char *page_path(struct k8s_run *run, const char *sel, const char *cont)
{
	char *base = k8s_pods_path(run, sel);
	char *econt = cont != NULL ? curl_easy_escape(run->curl, cont, 0) : NULL;
	char *path = NULL, limit[32] = "";

	if (base == NULL || (cont != NULL && econt == NULL))
		goto out;
	if (run->conf->limit > 0)
		snprintf(limit, sizeof(limit), "&limit=%ld", run->conf->limit);
	path = plugin_asprintf("%s%s%s%s", base, limit, econt ? "&continue=" : "", econt ? econt : "");
out:
	free(base);
	curl_free(econt);
	return path;
}

/* A page walked on a helper thread while the listing's thread fetches
 * the next one. */
struct walk {
	struct k8s_page *pg;   /* NULL: none under way */
	struct json_parser *parser;
	size_t selector;
	struct k8s_podvec *out;
	pthread_t thread;
};

static void *walk_main(void *arg)
{
	struct walk *w = arg;

	k8s_page_walk(w->pg, w->parser, w->selector, w->out);
	return NULL;
}

/* 1 when the page is being walked on a helper thread, 0 when no thread
 * could start (the caller walks it).  The helper takes no signals: they
 * stay with the host's threads. */
static int walk_start(struct walk *w, struct k8s_run *run, struct k8s_page *pg, size_t selector,
                      struct k8s_podvec *out)
{
	sigset_t all, old;
	int rc;

	w->pg = pg;
	w->parser = run->parser;
	w->selector = selector;
	w->out = out;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&w->thread, NULL, walk_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		w->pg = NULL;
	return rc == 0;
}

/* The page walked meanwhile: its verdict, and the walk's continue token. */
static muster_status walk_finish(struct k8s_run *run, struct walk *w, char **cont)
{
	struct k8s_page *pg = w->pg;

	pthread_join(w->thread, NULL);
	w->pg = NULL;
	return k8s_page_verdict(run, pg, cont);
}

static int same_token(const char *a, const char *b)
{
	return a != NULL && b != NULL ? strcmp(a, b) == 0 : a == b;
}

static muster_status fetch(struct k8s_run *run, const struct k8s_job *job, const char *sel,
                           const char *cont, long page, struct k8s_page *pg, long *code)
{
	char *path = page_path(run, sel, cont), what[600];
	muster_status st;

	if (path == NULL)
		return k8s_nomem(run);
	snprintf(what, sizeof(what), "job %s: pods matching \"%s\"%s%s (page %ld)", job->name, sel,
	         run->conf->all_namespaces ? " in all namespaces" : " in namespace ",
	         run->conf->all_namespaces ? "" : k8s_namespace(run), page);
	st = k8s_page_fetch(run, pg, path, what, code);
	free(path);
	return st;
}

/* A token this listing followed before means it would never end. */
static muster_status follow(struct k8s_run *run, const struct k8s_job *job, const char *sel,
                            struct k8s_tokens *followed, const char *tok, long page)
{
	switch (k8s_tokens_add(followed, tok)) {
	case 1:
		return MUSTER_STATUS_SUCCESS;
	case 0:
		run->host->fail(run->call, "job %s: pods matching \"%s\": the API server sent "
		                           "continue token \"%.80s%s\" twice (page %ld); its listing "
		                           "would never end",
		                job->name, sel, tok, strlen(tok) > 80 ? "..." : "", page);
		return MUSTER_STATUS_UNAVAIL;
	default:
		return k8s_nomem(run);
	}
}

/* The listing may go on to page `page` + 1. */
static muster_status within_max_pages(struct k8s_run *run, const struct k8s_job *job,
                                      const char *sel, long page)
{
	if (page < run->conf->max_pages)
		return MUSTER_STATUS_SUCCESS;
	run->host->fail(run->call, "job %s: pods matching \"%s\": more than %ld pages (max_pages); "
	                           "giving up",
	                job->name, sel, run->conf->max_pages);
	return MUSTER_STATUS_UNAVAIL;
}

/*
 * One selector's pages.  A page's continue token is read from its leading
 * bytes (k8s_continue_hint) as soon as it has arrived, so that the next
 * request goes out while a helper thread checks and walks the page: the
 * walk then costs no time beside the fetch, but the last page's.  Every
 * outcome is the one a page-after-page listing has: the page before is
 * judged before the fetch that followed it, so its error comes first, and
 * a guess the walk contradicts sends the request again with the walk's
 * token.  A token is followed once (the walk's, when known): one seen
 * before stops the listing, as does page max_pages with more to come.
 */
static muster_status list_selector(struct k8s_run *run, const struct k8s_job *job, size_t s,
                                   struct k8s_podvec *out)
{
	const char *sel = job->selectors[s];
	size_t start = out->n, mark = out->data.len;
	struct walk before = { 0 }; /* the page before this one, if still walking */
	struct k8s_tokens followed = { 0 };
	char *cont = NULL;          /* the token this request sends */
	char *walked;               /* the page before's token, as its walk found it */
	int restarts = 0, continued, which = 0;
	long page = 0, code = 0, beside = 0;
	muster_status st;

	for (;;) {
		struct k8s_page *pg = run->pages[which];

		st = fetch(run, job, sel, cont, ++page, pg, &code);
		if (before.pg != NULL) {
			muster_status bst = walk_finish(run, &before, &walked);

			if (bst == MUSTER_STATUS_SUCCESS && walked != NULL)
				bst = follow(run, job, sel, &followed, walked, page - 1);
			if (bst != MUSTER_STATUS_SUCCESS) {
				free(walked);
				st = bst;
				break;
			}
			if (!same_token(walked, cont)) {
				/* The guess was wrong: this page is dropped. */
				free(cont);
				cont = walked;
				page--;
				if (cont == NULL) {
					st = MUSTER_STATUS_SUCCESS; /* the listing was complete */
					break;
				}
				continue;
			}
			free(walked);
		}
		if (st != MUSTER_STATUS_SUCCESS)
			break;
		continued = cont != NULL;
		free(cont);
		cont = NULL;
		if (code == 410) {
			if (!continued || ++restarts > K8S_MAX_RESTARTS) {
				run->host->fail(run->call, "job %s: listing pods matching \"%s\": HTTP 410 "
				                           "Gone %s",
				                job->name, sel,
				                !continued ? "without a continue token"
				                             : "again and again; giving up");
				st = MUSTER_STATUS_UNAVAIL;
				break;
			}
			run->host->log(run->conf->pc, MUSTER_LOG_INFO,
			               "job %s: the continue token expired (410 Gone) on page %ld; "
			               "listing pods matching \"%s\" again from the start",
			               job->name, page, sel);
			page = 0;
			out->n = start;
			out->data.len = mark;
			k8s_tokens_clear(&followed); /* a new listing */
			continue;
		}
		cont = k8s_page_continue_hint(pg);
		/* A doubtful next page is not fetched ahead: the walk decides. */
		if (cont != NULL && page < run->conf->max_pages && !k8s_tokens_has(&followed, cont) &&
		    walk_start(&before, run, pg, s, out)) {
			which = !which;
			beside++;
			continue;
		}
		free(cont);
		cont = NULL;
		k8s_page_walk(pg, run->parser, s, out);
		st = k8s_page_verdict(run, pg, &cont);
		if (st != MUSTER_STATUS_SUCCESS || cont == NULL)
			break;
		if ((st = follow(run, job, sel, &followed, cont, page)) != MUSTER_STATUS_SUCCESS ||
		    (st = within_max_pages(run, job, sel, page)) != MUSTER_STATUS_SUCCESS)
			break;
	}
	free(cont);
	k8s_tokens_clear(&followed);
	if (st == MUSTER_STATUS_SUCCESS)
		run->host->log(run->conf->pc, MUSTER_LOG_DEBUG,
		               "job %s: %ld page%s of pods matching \"%s\", %ld read while the next "
		               "was fetched",
		               job->name, page, page == 1 ? "" : "s", sel, beside);
	return st;
}

static int same_pod(const struct k8s_podvec *v, const struct k8s_pod *a, const struct k8s_pod *b)
{
	const char *an = k8s_str(v, a->ns), *bn = k8s_str(v, b->ns);
	int c = strcmp(k8s_str(v, a->name), k8s_str(v, b->name));

	return c != 0 ? c : strcmp(an ? an : "", bn ? bn : "");
}

static int by_identity(const void *pa, const void *pb, void *vv)
{
	const struct k8s_pod *a = *(const struct k8s_pod *const *)pa;
	const struct k8s_pod *b = *(const struct k8s_pod *const *)pb;
	int c = same_pod(vv, a, b);

	if (c == 0)
		c = a->selector < b->selector ? -1 : a->selector > b->selector;
	if (c == 0)
		c = a < b ? -1 : a > b;
	return c;
}

/* A pod two selectors match is one task (TF lists it twice), kept where
 * the first selector found it. */
static muster_status dedupe(struct k8s_run *run, struct k8s_podvec *v)
{
	struct k8s_pod **idx;
	size_t i, o;

	if (v->n < 2)
		return MUSTER_STATUS_SUCCESS;
	if ((idx = malloc(v->n * sizeof(*idx))) == NULL)
		return k8s_nomem(run);
	for (i = 0; i < v->n; i++)
		idx[i] = &v->pods[i];
	qsort_r(idx, v->n, sizeof(*idx), by_identity, v);
	for (i = 1; i < v->n; i++)
		if (same_pod(v, idx[i], idx[i - 1]) == 0)
			idx[i]->index = -2; /* a repeat: dropped below */
	free(idx);
	for (i = o = 0; i < v->n; i++) {
		if (v->pods[i].index == -2)
			continue; /* its strings stay in the data until the listing goes */
		v->pods[o++] = v->pods[i];
	}
	v->n = o;
	return MUSTER_STATUS_SUCCESS;
}

muster_status k8s_list_job(struct k8s_run *run, const struct k8s_job *job,
                           struct k8s_podvec *out)
{
	muster_status st = MUSTER_STATUS_SUCCESS;
	size_t s;

	if ((run->parser == NULL && (run->parser = json_parser_new()) == NULL) ||
	    (run->pages[0] == NULL && (run->pages[0] = k8s_page_new(run->conf)) == NULL) ||
	    (run->pages[1] == NULL && (run->pages[1] = k8s_page_new(run->conf)) == NULL))
		return k8s_nomem(run);
	for (s = 0; s < job->nselectors && st == MUSTER_STATUS_SUCCESS; s++)
		st = list_selector(run, job, s, out);
	if (st == MUSTER_STATUS_SUCCESS && job->nselectors > 1)
		st = dedupe(run, out);
	/* The records grew by half each time: give the spare capacity back
	 * before the result is built beside them (a large block shrinks in
	 * place, so this costs no copy). */
	if (st == MUSTER_STATUS_SUCCESS && out->n > 0 && out->n < out->cap) {
		struct k8s_pod *fit = realloc(out->pods, out->n * sizeof(*fit));

		if (fit != NULL) {
			out->pods = fit;
			out->cap = out->n;
		}
	}
	return st;
}

void k8s_list_free(struct k8s_run *run)
{
	k8s_page_free(run->pages[0]);
	k8s_page_free(run->pages[1]);
	json_parser_free(run->parser);
	run->pages[0] = run->pages[1] = NULL;
	run->parser = NULL;
}
