/*
 * gce backend: internal interfaces between its files.
 *
 *   gce.c        descriptor, resolve() (environment, credentials, listing,
 *                build), close()
 *   options.c    open(): the entry's config options, checked, copied
 *   env.c        are we on GCE?  DMI product name, then the metadata
 *                server (short probe); project, zone, own name (cached)
 *   auth.c       which credentials, in Google's order, the token cache, and
 *                the Compute API request that sends the token
 *   jwt.c        a service-account key's RS256-signed JWT (libcrypto)
 *   http.c       libcurl: one handle per resolve, GET/POST with the call's
 *                budget, bounded retries, the API's error message
 *   members.c    instanceGroups.listInstances (RUNNING, paged) per group
 *   instances.c  instances.list per zone (filter, fields, paged) into
 *                compact instance records
 *   build.c      order, addresses, accelerators, self identity
 *   tpu.c        mode = "tpu_vm": this TPU VM's slice from the metadata
 *                server's instance attributes
 *   util.c       JSON getters, pages, strings
 *
 * No files call each other in a circle; gce.c is the top, util.c and
 * plugins/common (clock, HTTP setup and wording) the bottom.
 * Nothing here is exported: the plugin's only visible symbol is its entry.
 */
#ifndef MUSTER_PLUGINS_GCE_H
#define MUSTER_PLUGINS_GCE_H

#include <pthread.h>
#include <stddef.h>

#include <cJSON.h>
#include <curl/curl.h>
#include <muster/muster.h> /* MUSTER_LOG_*: the host log()'s levels */
#include <muster/plugin.h>

#include "plugins/common/answer.h"
#include "plugins/common/buf.h"

#define GCE_MAX_PAGE ((size_t)64 * 1024 * 1024) /* one page of JSON */
#define GCE_MAX_SMALL ((size_t)1024 * 1024)     /* metadata, tokens, key files */
#define GCE_MAX_FILE ((size_t)1024 * 1024)
#define GCE_MAX_PAGES 100000 /* a listing that never ends is an API fault */
#define GCE_DEFAULT_ENDPOINT "https://compute.googleapis.com/compute/v1"
#define GCE_DEFAULT_METADATA "169.254.169.254" /* metadata.google.internal, no DNS */
#define GCE_DEFAULT_DMI "/sys/class/dmi/id/product_name"
#define GCE_DEFAULT_TOKEN_URI "https://oauth2.googleapis.com/token"
#define GCE_SCOPE "https://www.googleapis.com/auth/compute.readonly"
/* Refresh a cached token this long before it expires (google-auth: 3m45s). */
#define GCE_REFRESH_MARGIN_S 225L

enum gce_mode { GCE_MODE_INSTANCE_GROUPS = 0, GCE_MODE_TPU_VM = 1 };
enum gce_order { GCE_ORDER_NATURAL = 0, GCE_ORDER_NAME = 1, GCE_ORDER_IP = 2 };
enum gce_address { GCE_ADDR_INTERNAL = 0, GCE_ADDR_EXTERNAL = 1 };

/* One instance group: its zone (NULL: the entry's zone) and name. */
struct gce_group {
	char *zone;
	char *name;
};

struct gce_job {
	char *name;
	struct gce_group *groups;
	size_t ngroups;
};

/* What resolve() may change in the state: guarded by `lock`. */
struct gce_cache {
	pthread_mutex_t lock;
	char *token;           /* the access token, NULL: none cached */
	char *token_source;    /* which credentials it came from */
	long long token_expiry; /* CLOCK_MONOTONIC seconds */
	/* the metadata server's answers, constant for an instance's life */
	char *project, *zone, *self; /* NULL: not asked yet */
	int self_absent;       /* asked, and there is no own name */
};

/* What open() keeps.  Read-only afterwards, except `cache`. */
struct gce_conf {
	muster_plugin_ctx *pc;
	enum gce_mode mode;
	struct gce_job *jobs;
	size_t njobs;
	char *project, *zone;  /* NULL: the metadata server's */
	long port;
	char *rpc_layer;
	enum gce_order order;
	enum gce_address address;
	long interface;        /* networkInterfaces index */
	char *endpoint;        /* compute_endpoint, no trailing '/' */
	char *access_token_file;
	char *credentials_file; /* else $GOOGLE_APPLICATION_CREDENTIALS */
	char *dmi_path;
	char *self_instance;   /* else the metadata server's instance/name */
	long metadata_timeout_ms;
	long page_size;
	long retries;          /* 5xx and 429 retries per request */
	struct gce_cache cache;
};


/* One RUNNING instance of a zone, as much as the answer needs. */
struct gce_inst {
	char *name;
	char *ip;              /* the chosen address, NULL: it has none */
	long gpus, tpus;       /* from guestAccelerators */
};

struct gce_instvec {
	struct gce_inst *v;
	size_t n, cap;
};

/* One member of a job: which group, which instance (a URL's parts). */
struct gce_member {
	char *name;
	char *zone;
	size_t group;          /* index in the job's groups */
};

struct gce_membervec {
	struct gce_member *v;
	size_t n, cap;
};

/* One resolve(). */
#define GCE_TYPE_SIZE 48

struct gce_run {
	const muster_host *host;
	muster_call *call;
	struct gce_conf *conf;
	CURL *curl;
	char errbuf[CURL_ERROR_SIZE];
	char *metadata;        /* "http://host[:port]" */
	char *token;           /* a copy for this call, NULL: none */
	char token_source[300];
	const char *project, *zone; /* conf's or the cache's (copied) */
	char *project_buf, *zone_buf, *self_buf;
	int on_gce;            /* 1: GCE, 0: not, -1: unknown (no DMI file) */
	int token_cached;      /* run->token came from the cache */
	int reauthed;          /* a 401 already dropped the cached token */
	long requests;         /* HTTP requests made, for logs */
	char answer_type[GCE_TYPE_SIZE]; /* the last answer's media type, "" if none */
};

/* options.c: the descriptor's open() and close(). */
int gce_open(const muster_host *host, muster_plugin_ctx *pc, void **state);
void gce_close(void *state);

/* env.c: whether this is GCE (run->on_gce from the DMI product name, which
 * `product` gets; -1 unknown or redirected by $GCE_METADATA_HOST) and the
 * metadata server's URL (run->metadata). */
muster_status gce_metadata_setup(struct gce_run *run, char *product, size_t size);
/* NOTFOUND when this is not GCE and the config cannot do without
 * the metadata server; fills run->project, run->zone, run->metadata. */
muster_status gce_env(struct gce_run *run);
/* The own instance name, NULL when unknown (no failure). */
const char *gce_self(struct gce_run *run);
/* GET a metadata path (below computeMetadata/v1/) into `out`. */
muster_status gce_metadata_get(struct gce_run *run, const char *path, long timeout_ms,
                               struct pbuf *out);

/* auth.c: run->token, from the cache or the first source that applies. */
muster_status gce_auth(struct gce_run *run);
/* A Compute API request with the bearer token (a JSON body when `body`);
 * a 401 on a cached token fetches a new one and tries once more. */
muster_status gce_api(struct gce_run *run, const char *what, const char *method, const char *url,
                      const char *body, struct pbuf *out);

/* jwt.c: the signed assertion for a service-account key; NULL + *why. */
char *gce_jwt(const char *client_email, const char *private_key, const char *key_id,
              const char *scope, const char *aud, long long now, const char **why);

/* http.c */
muster_status gce_http_setup(struct gce_run *run);
void gce_http_cleanup(struct gce_run *run);
enum gce_req_flags {
	GCE_REQ_AUTH = 0x1,     /* send the bearer token */
	GCE_REQ_METADATA = 0x2, /* Metadata-Flavor: Google, both ways */
	GCE_REQ_FORM = 0x4,     /* body is application/x-www-form-urlencoded */
	GCE_REQ_JSON = 0x8,     /* body is JSON */
	GCE_REQ_RAW = 0x10      /* any status: caller reads *code (no fail()) */
};
/* One request (with retries for 5xx/429).  SUCCESS with 200; any other
 * answer is UNAVAIL after fail() naming `what` and the API's message
 * (unless GCE_REQ_RAW).  `timeout_ms` 0: the call's remaining budget. */
muster_status gce_http(struct gce_run *run, const char *what, const char *method,
                       const char *url, const char *body, unsigned flags, long timeout_ms,
                       struct pbuf *out, long *code);

/* An error answer into fail(): the API's own message. */
void gce_http_fail(struct gce_run *run, const char *what, const char *method, const char *url,
                   long code, const struct pbuf *body);

/* members.c: every RUNNING member of job `j`'s groups, in `out`. */
muster_status gce_members(struct gce_run *run, size_t j, struct gce_membervec *out);
/* Its parts without the network, for the fuzz target: one answer's items
 * appended (*token: the next page's), and the repeats dropped. */
muster_status gce_members_page(struct gce_run *run, const char *what, size_t page,
                               const struct pbuf *b, const char *zone, size_t group,
                               struct gce_membervec *out, char **token);
muster_status gce_members_unique(struct gce_run *run, struct gce_membervec *v);
void gce_membervec_free(struct gce_membervec *v);

/* instances.c: instances.list of one zone, RUNNING ones, into `out`. */
muster_status gce_instances(struct gce_run *run, const char *zone, struct gce_instvec *out);
/* One answer's RUNNING instances appended (*token: the next page's). */
muster_status gce_instances_page(struct gce_run *run, const char *what, size_t page,
                                 const struct pbuf *b, struct gce_instvec *out, char **token);
void gce_instvec_free(struct gce_instvec *v);

/* build.c: order, index, the builder calls. */
muster_status gce_build(struct gce_run *run, struct gce_membervec *jobs,
                        char *const *znames, struct gce_instvec *zones, size_t nzones);

/* tpu.c: resolve() of mode = "tpu_vm", after gce_http_setup(). */
muster_status gce_tpu_resolve(struct gce_run *run);
/* Its parsers, apart for the fuzz target.  worker-network-endpoints into
 * hosts (*n of them, the caller frees them with gce_tpu_endpoints_free):
 * 0, or -1 with `why`. */
int gce_tpu_endpoints(const char *text, char ***hosts, size_t *n, char *why, size_t size);
void gce_tpu_endpoints_free(char **hosts, size_t n);
/* tpu-env's value of `key` ("KEY: 'value'" lines) into out: 1, or 0. */
int gce_tpu_env_value(const char *text, const char *key, char *out, size_t size);
/* Chips of CHIPS_PER_HOST_BOUNDS ("2,2,1"), of an accelerator type
 * ("v4-32": 16); 0 when they do not say. */
long gce_tpu_chips(const char *bounds);
long gce_tpu_type_chips(const char *type);

/* util.c */
const char *gce_basename(const char *url);
/* After a page: replaces *token with its nextPageToken (NULL on the last
 * page), refusing a token the API repeats (a listing that never ends). */
muster_status gce_next_page(struct gce_run *run, const char *what, size_t page,
                            const cJSON *root, char **token);
muster_status gce_nomem(struct gce_run *run);
/* cJSON helpers: a member of `obj` if it is a string (NULL otherwise). */
const char *gce_json_str(const cJSON *obj, const char *key);
/* The answer as JSON; NULL after fail() naming `what`. */
cJSON *gce_json_parse(struct gce_run *run, const char *what, const struct pbuf *b);
/* Every page of a Compute API listing, at most GCE_MAX_PAGES: `method` on
 * `url` (with its query; "&pageToken=" the last page's added), with `body`
 * when not NULL, each answer to `page_fn`, which takes its items and sets
 * *token to the next page's (NULL: it was the last).  SUCCESS, or another
 * status after fail() naming `what`. */
typedef muster_status gce_page_fn(struct gce_run *run, const char *what, size_t page,
                                  const struct pbuf *b, char **token, void *arg);
muster_status gce_list(struct gce_run *run, const char *what, const char *method, const char *url,
                       const char *body, gce_page_fn *page_fn, void *arg);
/* A listing page as JSON and its `items` array (*items NULL when absent);
 * NULL after fail() naming `what` and `page`. */
cJSON *gce_page_items(struct gce_run *run, const char *what, size_t page, const struct pbuf *b,
                      const cJSON **items);

#endif /* MUSTER_PLUGINS_GCE_H */
