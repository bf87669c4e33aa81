/*
 * kubernetes backend: internal interfaces between its files.
 *
 *   kubernetes.c  descriptor, resolve() (connect, list, wait, build), close()
 *   options.c     open(): the entry's config options, checked, copied
 *   connect.c     which API server and credentials: explicit settings, then a
 *                 kubeconfig, then the in-cluster service account
 *   kubeconfig.c  reads a kubeconfig with libyaml (contexts, clusters, users)
 *   http.c        libcurl: one handle per resolve, TLS material, GET a page,
 *                 the API's Status message on errors
 *   gunzip.c      a gzip answer decoded whole (libdeflate)
 *   podlist.c     one PodList page: fetched, walked as events into the fields
 *                 pod.c keeps, judged by the page's own checks
 *   continue_hint.c  the next page's token from a page's leading bytes
 *   json_page.cc  a page gathered and checked by simdjson, walked as events
 *   pod.c         one item's fields into a compact pod record
 *   list.c        the paged listing of every job's selectors (410 restarts),
 *                 a page walked while the next one is fetched
 *   order.c       task order inside a job: name, natural, label
 *   watch.c       watch(): list, then a watch stream per selector; events
 *                 that change what resolve() reads are reported
 *   build.c       addresses, self identity, accelerators: the builder calls
 *   indexed.c     mode = "indexed_job": this pod's Indexed Job or JobSet,
 *                 from JOB_COMPLETION_INDEX, the host name and the Job
 *   jobspec.c     one batch/v1 Job object into what indexed.c needs
 *   util.c        base64, small string helpers, paths, token files
 *
 * No files call each other in a circle; kubernetes.c is the top, util.c
 * and plugins/common (clock, HTTP setup and wording) the bottom.
 *
 * Nothing here is exported: the plugin's only visible symbol is its entry.
 */
#ifndef MUSTER_PLUGINS_KUBERNETES_H
#define MUSTER_PLUGINS_KUBERNETES_H

#include <stddef.h>
#include <stdint.h>

#include <curl/curl.h>
#include <muster/muster.h> /* MUSTER_LOG_*: the host log()'s levels */
#include <muster/plugin.h>

#include "plugins/common/answer.h"
#include "plugins/common/buf.h"

/* Limits that keep a hostile or broken server from exhausting memory. */
#define K8S_MAX_PAGE ((size_t)64 * 1024 * 1024)  /* one page of JSON */
#define K8S_MAX_FILE ((size_t)4 * 1024 * 1024)   /* kubeconfig, token, CA, keys */
#define K8S_MAX_INDEX 2147483647L                /* TF task indices are int32 */
#define K8S_MAX_RESTARTS 5                       /* 410 Gone restarts per listing */
#define K8S_MAX_SELECTORS 65535                  /* per job: a pod record keeps 16 bits */
#define K8S_MAX_KINDS 64                         /* accelerator kinds */

#define K8S_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

enum k8s_mode { K8S_MODE_SELECTORS = 0, K8S_MODE_INDEXED_JOB = 1 };
enum k8s_order { K8S_ORDER_NATURAL = 0, K8S_ORDER_NAME = 1, K8S_ORDER_LABEL = 2 };
enum k8s_address { K8S_ADDR_POD_IP = 0, K8S_ADDR_HOST_IP = 1, K8S_ADDR_KUBEFLOW = 2 };

/* A job: its name and its label selectors, in the order configured. */
struct k8s_job {
	char *name;
	char **selectors;
	size_t nselectors;
};

/* One accelerator kind and the resource names counted as it. */
struct k8s_accel_kind {
	char *kind;
	char **resources;
	size_t nresources;
};

/* What open() keeps: the options, copied.  Read-only afterwards. */
struct k8s_conf {
	muster_plugin_ctx *pc;
	enum k8s_mode mode;
	/* explicit connection */
	char *server, *token, *token_file, *ca_file, *client_cert, *client_key;
	int insecure;           /* insecure_skip_tls_verify */
	/* kubeconfig / in-cluster */
	char *kubeconfig, *context, *sa_dir;
	/* query */
	struct k8s_job *jobs;
	size_t njobs;
	char *namespace;        /* NULL: from the connection, else "default" */
	int all_namespaces;
	long limit;             /* 0: no paging */
	long max_pages;         /* per selector's listing */
	long wait_ms;
	enum k8s_order order;
	char *index_label;      /* order = label */
	/* addresses, identity, accelerators */
	enum k8s_address address;
	long port;
	char *port_name;        /* NULL: always `port` */
	char *self_pod;
	char *cluster_domain;   /* kubeflow; NULL: $CUSTOM_CLUSTER_DOMAIN */
	struct k8s_accel_kind *kinds;
	size_t nkinds;
	size_t nresources;      /* all resource names over all kinds */
	char *rpc_layer;
};

/* Key material: a path, or bytes held in memory (the kubeconfig's -data
 * forms), never both. */
struct k8s_blob {
	char *path;
	char *data;
	size_t len;
};

/* Where and how to connect, decided afresh on every resolve. */
struct k8s_conn {
	char *server;          /* scheme://host[:port][/prefix], no trailing '/' */
	char *token;           /* NULL: no bearer token */
	struct k8s_blob ca, cert, key;
	int insecure;
	char *namespace;       /* the source's namespace; NULL: none */
	char source[256];      /* for messages: "config", "kubeconfig FILE (context C)", ... */
};

/* Where a pod's string or counts sit in its listing's `data`: 1 + the
 * offset, 0 for none.  32 bits keep a record small; a listing's data is
 * bounded below 4 GiB (K8S_MAX_DATA). */
typedef uint32_t k8s_ref;
#define K8S_MAX_DATA ((size_t)UINT32_MAX - 1)

/* One pod, as much of it as the answer needs: a 52-byte record whatever
 * the pod, its strings and counts in the listing's one buffer. */
struct k8s_pod {
	k8s_ref name;
	k8s_ref ns;
	k8s_ref phase;         /* none: no phase given */
	k8s_ref ip;            /* the address chosen (pod or host IP) */
	k8s_ref kf_job, kf_type; /* kubeflow labels (address = kubeflow) */
	k8s_ref label_bad;     /* the index label's value when not an index */
	k8s_ref counts;        /* int32_t per accelerator kind (nkinds); none if all 0 */
	int32_t kf_index;
	int32_t label_index;   /* order = label: the index label, -1: none */
	int32_t port;          /* from port_name, -1: not found */
	int32_t index;         /* the task index, set by order.c */
	uint16_t selector;     /* which of the job's selectors matched it */
	uint8_t terminating;   /* metadata.deletionTimestamp set */
};

/* A job's pods: the records, and one buffer for all their strings (a
 * job's pods share their namespace and phase: kept once) and counts. */
struct k8s_podvec {
	struct k8s_pod *pods;
	size_t n, cap;
	struct pbuf data;
};

static inline const char *k8s_str(const struct k8s_podvec *v, k8s_ref r)
{
	return r != 0 ? v->data.data + r - 1 : NULL;
}

static inline const int32_t *k8s_counts(const struct k8s_podvec *v, const struct k8s_pod *p)
{
	return p->counts != 0 ? (const int32_t *)(const void *)(v->data.data + p->counts - 1) : NULL;
}

/* Where pod.c keeps the labels it reads. */
enum { K8S_LAB_KF_JOB, K8S_LAB_TF_JOB, K8S_LAB_KF_TYPE, K8S_LAB_TYPE, K8S_LAB_KF_INDEX,
       K8S_LAB_INDEX, K8S_LAB_CONF, K8S_NLABELS };

/* A resource quantity of the container being read. */
struct k8s_qty {
	long v;
	unsigned char state;   /* 0: absent, 1: v, 2: bad (`why`) */
	char why[80];
};

/* One item of a PodList while the stream goes through it (pod.c).  Its
 * strings sit in `str` until the item ends; fields hold 1 + their offset
 * (0: absent). */
struct k8s_item {
	const struct k8s_conf *conf;
	struct pbuf str;
	size_t name, ns, phase, ip, label[K8S_NLABELS];
	const char *label_kind[K8S_NLABELS]; /* a label that is not a string */
	int terminating;
	/* accelerators: kubelet's effective request (pod.c) */
	long *sum, *sidecars, *init_max, *one;
	struct k8s_qty *limits, *requests;
	size_t cname;          /* the container being read: its name */
	int init, always;      /* an init container; restartPolicy Always */
	/* the port named port_name */
	long port;             /* -1: not found yet */
	int port_done;         /* found (or failed): later ports are not read */
	int pname_match;       /* the port being read has that name */
	const char *cport_kind; /* its containerPort's JSON kind; NULL: none */
	double cport;
	/* the first error; `named`: the message may carry the pod's name */
	char err[320];
	int err_set, err_named;
};

struct libdeflate_decompressor;

/* One resolve(): the host, the call, the options. */
struct k8s_run {
	const muster_host *host;
	muster_call *call;
	const struct k8s_conf *conf;
	struct k8s_conn conn;
	CURL *curl;
	struct curl_slist *headers;
	char errbuf[CURL_ERROR_SIZE];
	struct libdeflate_decompressor *inflater;
	struct pbuf gzipped;   /* a gzip answer as it arrives (http.c) */
	long requests;         /* GETs made, for logs */
	const char *hint;      /* appended to a 403 or 404 answer's message; NULL: none */
	/* While listing (list.c): two pages, one fetched while the other is
	 * walked, and the parser that walks them. */
	struct k8s_page *pages[2];
	struct json_parser *parser;
};

/* options.c: the descriptor's open() and close(). */
int k8s_open(const muster_host *host, muster_plugin_ctx *pc, void **state);
void k8s_close(void *state);

/* connect.c: fills run->conn; NOTFOUND when no source applies. */
muster_status k8s_connect(struct k8s_run *run);
void k8s_conn_clear(struct k8s_conn *conn);

/* kubeconfig.c: the kubeconfig at `path` into run->conn.  `explicit`: the
 * path was configured (absent is an error rather than notfound). */
muster_status k8s_kubeconfig(struct k8s_run *run, const char *path, int explicit_path);

/* http.c */
muster_status k8s_http_setup(struct k8s_run *run);
void k8s_http_cleanup(struct k8s_run *run);
/* Where a 200 answer's bytes go, decoded: room for `n` more bytes (NULL
 * when out of memory), then how many were written there. */
struct k8s_sink {
	char *(*room)(void *ctx, size_t n);
	void (*wrote)(void *ctx, size_t n);
	void *ctx;
};
/* GET server+path, the answer into `sink`.  SUCCESS with *code 200 or 410;
 * any other answer is UNAVAIL after fail() with the API's Status message. */
muster_status k8s_http_get(struct k8s_run *run, const char *path, const struct k8s_sink *sink,
                           long *code);
/* k8s_http_get() into `out`, which it initialises; the caller frees it. */
muster_status k8s_http_get_buf(struct k8s_run *run, const char *path, struct pbuf *out,
                               long *code);

/* gunzip.c: the gzip stream in[0..len) decoded into `sink`, at most `max`
 * bytes; K8S_GUNZIP_BAD says why in `why`. */
enum { K8S_GUNZIP_OK = 0, K8S_GUNZIP_BAD = -1, K8S_GUNZIP_TOO_LARGE = -2, K8S_GUNZIP_NOMEM = -3 };
int k8s_gunzip(struct libdeflate_decompressor *d, const char *in, size_t len, size_t max,
               const struct k8s_sink *sink, char *why, size_t whysize);

/* podlist.c: one page of a PodList.  The listing's thread fetches it and
 * judges it (both may fail() the call); the walk between touches nothing
 * but the page, `out` and the read-only options, so that it may run on a
 * helper thread while the next page is fetched. */
struct k8s_page;
struct json_parser;
struct k8s_page *k8s_page_new(const struct k8s_conf *conf); /* NULL: no memory */
void k8s_page_free(struct k8s_page *pg);
/* GET server+path into the page (k8s_http_get's answers); `what` names
 * the request in messages. */
muster_status k8s_page_fetch(struct k8s_run *run, struct k8s_page *pg, const char *path,
                             const char *what, long *code);
/* The fetch without the network (the fuzz target): the page emptied,
 * named `what`, and the sink its bytes go into. */
void k8s_page_begin(struct k8s_page *pg, const char *what, struct k8s_sink *sink);
/* The fetched page's continue token, guessed from its leading bytes
 * (k8s_continue_hint) before it is walked; NULL: no guess. */
char *k8s_page_continue_hint(const struct k8s_page *pg);
/* Checks and walks the fetched page: its pods appended to `out`. */
void k8s_page_walk(struct k8s_page *pg, struct json_parser *parser, size_t selector,
                   struct k8s_podvec *out);
/* The walk's verdict: SUCCESS with the continue token (NULL: the last
 * page), or UNAVAIL after fail() naming the page and what is wrong. */
muster_status k8s_page_verdict(struct k8s_run *run, struct k8s_page *pg, char **cont);
void k8s_podvec_free(struct k8s_podvec *v);

/* pod.c: an item's fields as podlist.c finds them. */
/* The training operator's labels, as K8S_LAB_*: each name, then its old one. */
extern const char *const k8s_kubeflow_labels[K8S_LAB_CONF];
int k8s_item_init(struct k8s_item *it, const struct k8s_conf *conf);
void k8s_item_free(struct k8s_item *it);
void k8s_item_begin(struct k8s_item *it);
/* Stores string `s` for a field (&it->name, &it->label[L], ...); -1: no memory. */
int k8s_item_string(struct k8s_item *it, size_t *field, const char *s, size_t len);
void k8s_item_bad(struct k8s_item *it, int named, const char *fmt, ...) MUSTER_PLUGIN_PRINTF(3, 4);
void k8s_item_container_begin(struct k8s_item *it, int init);
/* A quantity of resource `r` in limits (requests: !limits): a JSON number
 * (`isnum`, `num`) or string (s, len); `kind`: the JSON kind when neither. */
void k8s_item_quantity(struct k8s_item *it, int limits, size_t r, const char *kind, int isnum,
                       double num, const char *s, size_t len);
void k8s_item_container_end(struct k8s_item *it);
void k8s_item_port_end(struct k8s_item *it);
/* After the last container: the effective request summed per accelerator
 * kind into counts[nkinds]; 0, or -1 after k8s_item_bad when one passes
 * what a task can have. */
int k8s_item_kind_counts(struct k8s_item *it, long *counts);
/* The item read: 0 with a record appended to `out`, -1 with it->err set
 * (it->name names the pod when err_named), -2 out of memory. */
int k8s_item_end(struct k8s_item *it, size_t selector, struct k8s_podvec *out);

/* continue_hint.c: the continue token a page's leading bytes give, before
 * the page is checked: a guess, to be compared with the walk's.  NULL
 * when they give none or are not shaped as the API server writes them. */
char *k8s_continue_hint(const char *p, size_t len);

/* tokens.c: a set of continue tokens, zeroed to start. */
struct k8s_tokens {
	char **slot;
	size_t cap, n;
};
/* 1: added; 0: already there; -1: no memory. */
int k8s_tokens_add(struct k8s_tokens *t, const char *tok);
int k8s_tokens_has(const struct k8s_tokens *t, const char *tok);
/* Empties the set, which may then be used again. */
void k8s_tokens_clear(struct k8s_tokens *t);

/* list.c: the namespace asked: the entry's, else the connection's (a
 * kubeconfig context's, the service account's), else "default". */
const char *k8s_namespace(const struct k8s_run *run);
/* the pods of selector `sel` in the configured namespace (or all),
 * as a path with its query begun; NULL: no memory. */
char *k8s_pods_path(struct k8s_run *run, const char *sel);
/* every pod of job `j`, all selectors, de-duplicated. */
muster_status k8s_list_job(struct k8s_run *run, const struct k8s_job *job,
                           struct k8s_podvec *out);
/* The pages and parser, as large as a page: freed when the listing is done. */
void k8s_list_free(struct k8s_run *run);

/* order.c: sorts the job's pods and gives each its task index. */
muster_status k8s_order(struct k8s_run *run, const struct k8s_job *job, struct k8s_podvec *v);

/* build.c: the answer from the ordered, running pods of every job.  With
 * `partial`, for a tryagain: the pods that are ready as tasks, the others
 * (and jobs without pods) as pending members (ABI 1.8), each at the index
 * it will have. */
muster_status k8s_build(struct k8s_run *run, struct k8s_podvec *jobs, int partial);
/* Why a pod is not ready ("Pending", "Terminating", "Running but has no
 * pod IP yet"), in `buf` or a constant; NULL when it is ready. */
const char *k8s_not_ready(const struct k8s_run *run, const struct k8s_podvec *v,
                          const struct k8s_pod *p, char *buf, size_t size);

/* jobspec.c: one batch/v1 Job, as mode = "indexed_job" needs it. */
struct k8s_jobspec {
	char *name, *uid;
	long completions, parallelism; /* completions -1: not set; parallelism defaults to 1 */
	int indexed;      /* spec.completionMode Indexed: 1, another: 0, none (API before 1.21): -1 */
	char *subdomain;  /* spec.template.spec.subdomain; NULL: none */
	int deleting;     /* metadata.deletionTimestamp set */
	/* The labels a JobSet puts on its Jobs (jobset.sigs.k8s.io/...);
	 * NULL and -1 when absent. */
	char *jobset, *jobset_uid, *rjob, *coordinator;
	long job_index, replicas, global_index;
	long accel[K8S_MAX_KINDS]; /* a pod's, per accelerator kind of the entry */
};
struct cJSON;
/* 0; -1 with `why` naming the Job and the field; -2 out of memory. */
int k8s_jobspec_read(const struct k8s_conf *conf, const struct cJSON *job,
                     struct k8s_jobspec *out, char *why, size_t size);
void k8s_jobspec_free(struct k8s_jobspec *j);

/* indexed.c: resolve() and watch() of mode = "indexed_job". */
muster_status k8s_indexed_resolve(struct k8s_run *run);
int k8s_indexed_watch(const struct k8s_conf *conf, const muster_host *host,
                      muster_plugin_ctx *pc, muster_watcher *w);

/* watch.c */
int k8s_watch(void *state, const muster_host *host, muster_plugin_ctx *pc, muster_watcher *w);

/* util.c */
/* The token file read again, trimmed; NULL + fail() on error. */
char *k8s_read_token(struct k8s_run *run, const char *path, const char *what);
/* RFC 4648 base64 (whitespace ignored); -1 when invalid. */
int k8s_base64_decode(const char *in, char **out, size_t *outlen);
/* A path relative to the directory of `base` (kubeconfig rule). */
char *k8s_path_relative(const char *base, const char *path);
/* Fails the call with "out of memory" and answers UNAVAIL. */
muster_status k8s_nomem(struct k8s_run *run);

#endif /* MUSTER_PLUGINS_KUBERNETES_H */
