/*
 * libvirt backend: internal interfaces between its files.
 *
 *   libvirt.c   descriptor, resolve() (connect, list, check, build), close()
 *   options.c   open(): the entry's config options, checked, copied
 *   conn.c      the read-only connection, libvirt's errors kept off stderr
 *   domain.c    one domain's XML (libxml2): muster metadata, interfaces,
 *               hostdevs; a node device's XML
 *   accel.c     hostdevs → accelerators (node devices, metadata, GPU)
 *   address.c   virDomainInterfaceAddresses over the configured sources
 *   build.c     order, indices, self identity: the builder calls
 *   watch.c     watch(): domain events, addresses awaited, reconnects
 *   evloop.c    the process's libvirt event loop, shared by the watches
 *
 * Calls go one way: libvirt.c uses the others but evloop.c; watch.c uses
 * evloop.c, conn.c, domain.c, address.c and libvirt.c's membership test;
 * accel.c uses conn.c and domain.c; address.c uses conn.c and options.c;
 * conn.c uses domain.c.
 * Nothing here is exported: the plugin's only visible symbol is its entry.
 */
#ifndef MUSTER_PLUGINS_LIBVIRT_H
#define MUSTER_PLUGINS_LIBVIRT_H

#include <stddef.h>

#include <libvirt/libvirt.h>
#include <muster/muster.h> /* MUSTER_LOG_*: the host log()'s levels */
#include <muster/plugin.h>

#include "plugins/common/answer.h"

/* The XML namespace of the per-domain metadata element (muster.conf(5)). */
#define VIRT_NS "https://muster.dev/xmlns/libvirt/1"

#define VIRT_DEFAULT_URI "qemu:///system"
#define VIRT_DMI_UUID "/sys/class/dmi/id/product_uuid"
#define VIRT_MAX_INDEX 2147483647L /* TF task indices are int32 */
#define VIRT_MAX_SOURCES 3
#define VIRT_MAX_KINDS 16          /* accelerator kinds per domain */

enum virt_order { VIRT_ORDER_NATURAL = 0, VIRT_ORDER_NAME = 1 };
enum virt_family { VIRT_FAMILY_ANY = 0, VIRT_FAMILY_IPV4 = 1, VIRT_FAMILY_IPV6 = 2 };
enum virt_inactive { VIRT_INACTIVE_TRYAGAIN = 0, VIRT_INACTIVE_SKIP = 1 };

/* A job: its name and its name globs (none: metadata only). */
struct virt_job {
	char *name;
	char **globs;
	size_t nglobs;
};

/* One accelerator kind and the PCI vendor IDs counted as it. */
struct virt_accel_kind {
	char *kind;
	unsigned *vendors;
	size_t nvendors;
};

/* What open() keeps: the options, copied.  Read-only afterwards. */
struct virt_conf {
	muster_plugin_ctx *pc;
	char *uri;
	int uri_explicit;              /* configured, not the default */
	struct virt_job *jobs;
	size_t njobs;                  /* 0: every job named by metadata */
	enum virt_inactive inactive;
	unsigned sources[VIRT_MAX_SOURCES]; /* VIR_DOMAIN_INTERFACE_ADDRESSES_SRC_* */
	size_t nsources;
	char *network;                 /* only interfaces on this network */
	char *interface;               /* only this interface (name or MAC) */
	enum virt_family family;
	long port;
	enum virt_order order;
	struct virt_accel_kind *kinds;
	size_t nkinds;
	char *self_domain;             /* explicit own domain (name or UUID) */
	char *dmi_uuid_path;
	char *rpc_layer;
	long address_poll_ms;          /* watch: resolve again this often; 0: never */
};

/* An accelerator count. */
struct virt_accel {
	char kind[32];
	long count;
};

/* A passthrough device of a domain. */
struct virt_hostdev {
	int mdev;                      /* 0: PCI, 1: mediated device */
	char nodedev[80];              /* node-device name it should have */
};

/* One domain, as much of it as the answer needs. */
struct virt_domain {
	virDomainPtr dom;
	char *name;
	char uuid[VIR_UUID_STRING_BUFLEN];
	int state;                     /* VIR_DOMAIN_* */
	int running;
	/* muster metadata */
	int has_meta;
	char *meta_job;
	long meta_index;               /* -1: none */
	long meta_port;                /* -1: none */
	struct virt_accel meta_accel[VIRT_MAX_KINDS];
	size_t nmeta_accel;
	int meta_has_accel;
	/* devices */
	char **if_macs;                /* interfaces allowed by network = ...; */
	size_t nif_macs;
	int if_restricted;             /* network set: only those MACs */
	struct virt_hostdev *hostdevs;
	size_t nhostdevs;
	/* the answer */
	size_t job;                    /* index into the run's jobs */
	long index;
	char *address;                 /* host:port */
	struct virt_accel accel[VIRT_MAX_KINDS];
	size_t naccel;
};

/* A cache of node-device answers for one resolve. */
struct virt_nodedev {
	char *name;
	int found;
	unsigned vendor;               /* PCI vendor ID (mdev: the parent's) */
	unsigned pclass;               /* PCI class (24 bits) */
	char *parent;                  /* mdev: the parent's name */
	char *mdev_type;               /* mdev: its type id */
};

/* The jobs of one resolve: configured ones, or those metadata names. */
struct virt_runjob {
	const char *name;
	const struct virt_job *conf;   /* NULL: from metadata only */
	size_t nmembers;
};

/* One resolve(): the host, the call, the options, the connection. */
struct virt_run {
	const muster_host *host;
	muster_call *call;
	const struct virt_conf *conf;
	virConnectPtr conn;
	struct virt_domain *doms;      /* the members and candidates */
	size_t ndoms;
	struct virt_runjob *jobs;
	size_t njobs;
	char **meta_jobs;              /* metadata-only mode: owned names */
	struct virt_nodedev *nodedevs;
	size_t nnodedevs, capnodedevs;
	int agent_denied;              /* the agent source refused (read-only) */
	long calls;                    /* libvirt calls made, for logs */
};

/* options.c: the descriptor's open() and close(). */
int virt_open(const muster_host *host, muster_plugin_ctx *pc, void **state);
void virt_close(void *state);
const char *virt_source_name(unsigned source);

/* conn.c */
muster_status virt_connect(struct virt_run *run);
void virt_disconnect(struct virt_run *run);
/* libvirt's last error on this thread: its message, its code. */
const char *virt_last_error(void);
int virt_last_error_code(void);

/* domain.c: libxml2 initialised once, before any use of it. */
void virt_xml_init(void);
/* Fills `d` from the domain's XML; UNAVAIL after fail() on bad
 * metadata. */
muster_status virt_domain_parse(struct virt_run *run, struct virt_domain *d, const char *xml);
void virt_domain_clear(struct virt_domain *d);
/* The PCI vendor, class, parent and mdev type of a node device's XML. */
int virt_nodedev_parse(const char *xml, struct virt_nodedev *n);

/* libvirt.c: the configured job (index in conf->jobs) that claims the
 * domain, or -1; with no jobs configured, 0 when its metadata names one. */
long virt_member_job(const struct virt_conf *conf, const struct virt_domain *d);

/* watch.c: the descriptor's watch(). */
int virt_watch(void *state, const muster_host *host, muster_plugin_ctx *pc, muster_watcher *w);

/* evloop.c: a running event loop for the caller's watch (-1 with *why when
 * there can be none); release when the watch ends.  barrier() returns
 * once the loop has finished whatever callback it was running. */
int virt_evloop_acquire(const char **why);
void virt_evloop_release(void);
void virt_evloop_barrier(void);

/* accel.c */
muster_status virt_accelerators(struct virt_run *run, struct virt_domain *d);
void virt_nodedevs_free(struct virt_run *run);

/* address.c: UNAVAIL after fail(); TRYAGAIN after fail() when the domain
 * has no address yet. */
muster_status virt_address(struct virt_run *run, struct virt_domain *d, long port);
/* The usable address one source's answer gives (NULL: none), apart from
 * the libvirt call for the fuzz target. */
const virDomainIPAddress *virt_address_pick(const struct virt_run *run,
                                            const struct virt_domain *d,
                                            virDomainInterfacePtr *ifaces, int n);

/* build.c */
muster_status virt_assign(struct virt_run *run);
muster_status virt_build(struct virt_run *run);

/* Fails the call with "out of memory" and answers UNAVAIL. */
static inline muster_status virt_nomem(struct virt_run *run)
{
	run->host->fail(run->call, "out of memory");
	return MUSTER_STATUS_UNAVAIL;
}

#endif /* MUSTER_PLUGINS_LIBVIRT_H */
