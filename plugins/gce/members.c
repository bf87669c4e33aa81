/*
 * gce: who is in a job — instanceGroups.listInstances of each of its
 * groups, RUNNING instances only, every page (nextPageToken), with a
 * `fields` selection so pages carry only the instance URLs.
 *
 * A member's name and zone come from its instance URL
 * (.../zones/ZONE/instances/NAME), so a regional group's members in
 * several zones are found where they are.  One instance in two groups of
 * a job is one task (the first group's).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gce.h"
#include "lib/vec.h"

void gce_membervec_free(struct gce_membervec *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		free(v->v[i].name);
		free(v->v[i].zone);
	}
	free(v->v);
	memset(v, 0, sizeof(*v));
}

/* One item's instance URL into the vector. */
static muster_status add_member(struct gce_run *run, const char *what, size_t page, size_t i,
                                const cJSON *item, const char *group_zone, size_t group,
                                struct gce_membervec *out)
{
	const char *url = gce_json_str(item, "instance"), *name, *z, *ze;
	struct gce_member *m;
	char *zone;

	if (url == NULL || (name = gce_basename(url))[0] == '\0')
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "%s (page %zu): items[%zu] has no instance URL", what, page,
		                     i);
	/* The zone in the URL, else the group's. */
	if ((z = strstr(url, "/zones/")) != NULL && (ze = strchr(z + 7, '/')) != NULL)
		zone = strndup(z + 7, (size_t)(ze - z - 7));
	else
		zone = strdup(group_zone);
	if (zone == NULL)
		return gce_nomem(run);
	if (vec_reserve(&out->v, &out->cap, out->n + 1, sizeof(*out->v)) < 0) {
		free(zone);
		return gce_nomem(run);
	}
	m = &out->v[out->n];
	memset(m, 0, sizeof(*m));
	m->zone = zone;
	m->group = group;
	if ((m->name = strdup(name)) == NULL) {
		free(zone);
		return gce_nomem(run);
	}
	out->n++;
	return MUSTER_STATUS_SUCCESS;
}

/* One answer of listInstances: its members appended to `out`, *token
 * replaced by the next page's. */
muster_status gce_members_page(struct gce_run *run, const char *what, size_t page,
                               const struct pbuf *b, const char *zone, size_t group,
                               struct gce_membervec *out, char **token)
{
	const cJSON *items = NULL, *it;
	cJSON *root = gce_page_items(run, what, page, b, &items);
	muster_status st = MUSTER_STATUS_SUCCESS;
	size_t i = 0;

	if (root == NULL)
		return MUSTER_STATUS_UNAVAIL;
	cJSON_ArrayForEach(it, items)
	{
		if ((st = add_member(run, what, page, i++, it, zone, group, out)) !=
		    MUSTER_STATUS_SUCCESS)
			break;
	}
	if (st == MUSTER_STATUS_SUCCESS)
		st = gce_next_page(run, what, page, root, token);
	cJSON_Delete(root);
	return st;
}

/* One group's listing: where its pages' members go. */
struct group_listing {
	const char *zone;
	size_t group;
	struct gce_membervec *out;
};

static muster_status members_page(struct gce_run *run, const char *what, size_t page,
                                  const struct pbuf *b, char **token, void *arg)
{
	const struct group_listing *l = arg;

	return gce_members_page(run, what, page, b, l->zone, l->group, l->out, token);
}

static muster_status list_group(struct gce_run *run, const struct gce_group *g, size_t group,
                                struct gce_membervec *out)
{
	struct group_listing l = { g->zone != NULL ? g->zone : run->zone, group, out };
	char what[300], *url;
	muster_status st;

	url = plugin_asprintf("%s/projects/%s/zones/%s/instanceGroups/%s/listInstances"
	                      "?maxResults=%ld&fields=items%%2Finstance%%2CnextPageToken",
	                      run->conf->endpoint, run->project, l.zone, g->name,
	                      run->conf->page_size);
	if (url == NULL)
		return gce_nomem(run);
	snprintf(what, sizeof(what), "instance group %s (zone %s, project %s)", g->name, l.zone,
	         run->project);
	st = gce_list(run, what, "POST", url, "{\"instanceState\":\"RUNNING\"}", members_page, &l);
	free(url);
	return st;
}

/* Members by identity (name, zone), then by position: the first of
 * equals is the one listed first. */
static int by_identity(const void *a, const void *b)
{
	const struct gce_member *x = *(struct gce_member *const *)a;
	const struct gce_member *y = *(struct gce_member *const *)b;
	int c;

	if ((c = strcmp(x->name, y->name)) != 0 || (c = strcmp(x->zone, y->zone)) != 0)
		return c;
	return x < y ? -1 : x > y;
}

/* An instance listed twice (two groups of the job, or a repeated item) is
 * one task, the first listing's.  Sorted, not a scan per member: that was
 * quadratic, and the largest cost of resolving 1,000 members. */
muster_status gce_members_unique(struct gce_run *run, struct gce_membervec *v)
{
	struct gce_member **p, *keep;
	size_t i, o;

	if (v->n < 2)
		return MUSTER_STATUS_SUCCESS;
	if ((p = malloc(v->n * sizeof(*p))) == NULL)
		return gce_nomem(run);
	for (i = 0; i < v->n; i++)
		p[i] = &v->v[i];
	qsort(p, v->n, sizeof(*p), by_identity);
	for (keep = p[0], i = 1; i < v->n; i++)
		if (strcmp(p[i]->name, keep->name) == 0 && strcmp(p[i]->zone, keep->zone) == 0) {
			free(p[i]->name); /* a NULL name: dropped below */
			p[i]->name = NULL;
		} else
			keep = p[i];
	free(p);
	for (i = o = 0; i < v->n; i++)
		if (v->v[i].name != NULL)
			v->v[o++] = v->v[i];
		else
			free(v->v[i].zone);
	v->n = o;
	return MUSTER_STATUS_SUCCESS;
}

muster_status gce_members(struct gce_run *run, size_t j, struct gce_membervec *out)
{
	const struct gce_job *job = &run->conf->jobs[j];
	muster_status st;
	size_t k;

	for (k = 0; k < job->ngroups; k++)
		if ((st = list_group(run, &job->groups[k], k, out)) != MUSTER_STATUS_SUCCESS)
			return st;
	return gce_members_unique(run, out);
}
