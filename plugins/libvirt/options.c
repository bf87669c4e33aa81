/*
 * libvirt: open() — the entry's options, checked and copied.  Nothing here
 * contacts libvirt: the connection is opened on every resolve.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "virt.h"
#include "plugins/common/popts.h"

static int read_globs(const muster_popts *o, const muster_cfg *el, const char *what, void *entry)
{
	struct virt_job *job = entry;

	return muster_popt_string_list(o, el, what, &job->globs, &job->nglobs);
}

static const struct popt_members job_members = {
	.shape = "job = \"name glob\" or [\"glob\", ...]", .noun = "job", .min = 1,
	.size = sizeof(struct virt_job), .read = read_globs,
};

static int read_jobs(const muster_popts *o, const muster_cfg *node, void *base)
{
	struct virt_conf *conf = base;

	if (node == NULL)
		return 0; /* membership by metadata only */
	return popt_members(o, node, &job_members, &conf->jobs, &conf->njobs);
}

static const char *const source_names[] = { "lease", "agent", "arp", NULL };
static const unsigned source_values[] = { VIR_DOMAIN_INTERFACE_ADDRESSES_SRC_LEASE,
	                                  VIR_DOMAIN_INTERFACE_ADDRESSES_SRC_AGENT,
	                                  VIR_DOMAIN_INTERFACE_ADDRESSES_SRC_ARP };

const char *virt_source_name(unsigned source)
{
	size_t i;

	for (i = 0; i < 3; i++)
		if (source_values[i] == source)
			return source_names[i];
	return "?";
}

/* One element of a sources list: its position in source_names, or -1
 * after open_error (a CHOICE row reads keys, not list elements). */
static int source_of(const muster_popts *o, const muster_cfg *el)
{
	const char *s;
	int i;

	if (muster_popt_node_string(o, el, "sources", 0, &s) < 0)
		return -1;
	for (i = 0; source_names[i] != NULL; i++)
		if (strcmp(s, source_names[i]) == 0)
			return i;
	o->host->open_error(o->pc, el, "sources must be one of lease, agent, arp, not \"%s\"", s);
	return -1;
}

static int read_sources(const muster_popts *o, const muster_cfg *node, void *base)
{
	struct virt_conf *conf = base;
	size_t count, i, j;

	if (node == NULL) {
		for (i = 0; i < 3; i++)
			conf->sources[i] = source_values[i];
		conf->nsources = 3;
		return 0;
	}
	if (o->host->cfg_type(node) == MUSTER_CFG_STRING) {
		int c = source_of(o, node);

		if (c < 0)
			return -1;
		conf->sources[0] = source_values[c];
		conf->nsources = 1;
		return 0;
	}
	if (o->host->cfg_type(node) != MUSTER_CFG_ARRAY && o->host->cfg_type(node) != MUSTER_CFG_LIST)
		return popt_fail(o, node,
		                 "sources must be a list of \"lease\", \"agent\", \"arp\", not %s",
		                 muster_popt_kind(o->host, node));
	count = o->host->cfg_count(node);
	if (count == 0 || count > 3)
		return popt_fail(o, node,
		                 "sources must list 1 to 3 of \"lease\", \"agent\", \"arp\"");
	for (i = 0; i < count; i++) {
		const muster_cfg *el = o->host->cfg_at(node, i);
		int c;

		if ((c = source_of(o, el)) < 0)
			return -1;
		for (j = 0; j < i; j++)
			if (conf->sources[j] == source_values[c])
				return popt_fail(o, el,
				                 "sources lists \"%s\" twice", source_names[c]);
		conf->sources[i] = source_values[c];
		conf->nsources = i + 1;
	}
	return 0;
}

/* "0x10de" or "10de": a PCI vendor ID. */
static int parse_vendor(const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (s[0] == '\0')
		return -1;
	v = strtoul(s, &end, 16);
	if (*end != '\0' || v > 0xffff || end - s > 4)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static const struct {
	const char *kind;
	unsigned vendors[3];
	size_t n;
} default_kinds[] = {
	{ "GPU", { 0x10de /* NVIDIA */, 0x1002 /* AMD */ }, 2 },
	{ "TPU", { 0x1ae0 /* Google */ }, 1 },
};

static int valid_kind(const char *k)
{
	size_t i;

	if (k[0] == '\0' || strlen(k) >= sizeof(((struct virt_accel *)0)->kind))
		return 0;
	for (i = 0; k[i]; i++)
		if (!((k[i] >= 'A' && k[i] <= 'Z') || (k[i] >= 'a' && k[i] <= 'z') ||
		      (k[i] >= '0' && k[i] <= '9') || k[i] == '_' || k[i] == '-'))
			return 0;
	return 1;
}

/* accelerators = { GPU = ["0x10de", "0x1002"]; TPU = "0x1ae0"; }; */
static int read_vendors(const muster_popts *o, const muster_cfg *el, const char *what,
                        void *entry)
{
	struct virt_accel_kind *k = entry;
	char **ids = NULL;
	size_t nids = 0, j;
	int rc = 0;

	if (!valid_kind(k->kind))
		return popt_fail(o, el, "accelerator kind \"%s\" is too long", k->kind);
	if (muster_popt_string_list(o, el, what, &ids, &nids) < 0)
		rc = -1;
	if (rc == 0 && (k->vendors = calloc(nids, sizeof(unsigned))) == NULL)
		rc = muster_popt_nomem(o, el);
	for (j = 0; rc == 0 && j < nids; j++) {
		if (parse_vendor(ids[j], &k->vendors[j]) < 0) {
			o->host->open_error(o->pc, o->host->cfg_type(el) == MUSTER_CFG_STRING
			                               ? el : o->host->cfg_at(el, j),
			                    "%s: \"%s\" is not a PCI vendor ID such as \"0x10de\"",
			                    what, ids[j]);
			rc = -1;
		}
		k->nvendors = j + 1;
	}
	popt_strings_free(ids, nids);
	return rc;
}

static const struct popt_members kind_members = {
	.shape = "KIND = [\"PCI vendor ID\", ...]", .noun = "kind",
	.size = sizeof(struct virt_accel_kind), .read = read_vendors,
};

static int read_accelerators(const muster_popts *o, const muster_cfg *node, void *base)
{
	struct virt_conf *conf = base;
	size_t count, i;

	if (node == NULL) {
		count = sizeof(default_kinds) / sizeof(default_kinds[0]);
		if ((conf->kinds = calloc(count, sizeof(*conf->kinds))) == NULL)
			return muster_popt_nomem(o, NULL);
		for (i = 0; i < count; i++) {
			struct virt_accel_kind *k = &conf->kinds[i];

			conf->nkinds = i + 1;
			if ((k->kind = strdup(default_kinds[i].kind)) == NULL ||
			    (k->vendors = calloc(default_kinds[i].n, sizeof(unsigned))) == NULL)
				return muster_popt_nomem(o, NULL);
			memcpy(k->vendors, default_kinds[i].vendors, default_kinds[i].n * sizeof(unsigned));
			k->nvendors = default_kinds[i].n;
		}
		return 0;
	}
	return popt_members(o, node, &kind_members, &conf->kinds, &conf->nkinds);
}

void virt_close(void *state)
{
	struct virt_conf *conf = state;
	size_t i;

	if (conf == NULL)
		return;
	free(conf->uri);
	for (i = 0; i < conf->njobs; i++) {
		free(conf->jobs[i].name);
		popt_strings_free(conf->jobs[i].globs, conf->jobs[i].nglobs);
	}
	free(conf->jobs);
	free(conf->network);
	free(conf->interface);
	for (i = 0; i < conf->nkinds; i++) {
		free(conf->kinds[i].kind);
		free(conf->kinds[i].vendors);
	}
	free(conf->kinds);
	free(conf->self_domain);
	free(conf->dmi_uuid_path);
	free(conf->rpc_layer);
	free(conf);
}

static const char *const order_names[] = { "natural", "name", NULL };
static const char *const family_names[] = { "any", "ipv4", "ipv6", NULL };
static const char *const inactive_names[] = { "tryagain", "skip", NULL };

static const muster_popt options[] = {
	MUSTER_POPT_STRING("uri", struct virt_conf, uri, 0, VIRT_DEFAULT_URI),
	MUSTER_POPT_CUSTOM("jobs", read_jobs),
	MUSTER_POPT_CUSTOM("sources", read_sources),
	MUSTER_POPT_STRING("network", struct virt_conf, network, 0, NULL),
	MUSTER_POPT_STRING("interface", struct virt_conf, interface, 0, NULL),
	MUSTER_POPT_INT("port", struct virt_conf, port, 1, 65535, 8470), /* TF's tf_server_port */
	MUSTER_POPT_CUSTOM("accelerators", read_accelerators),
	MUSTER_POPT_STRING("self_domain", struct virt_conf, self_domain, 0, NULL),
	MUSTER_POPT_STRING("dmi_uuid_path", struct virt_conf, dmi_uuid_path, 0, VIRT_DMI_UUID),
	MUSTER_POPT_STRING("rpc_layer", struct virt_conf, rpc_layer, MUSTER_POPT_EMPTY, "grpc"),
	MUSTER_POPT_CHOICE("order", struct virt_conf, order, order_names, 0),
	MUSTER_POPT_CHOICE("family", struct virt_conf, family, family_names, 0),
	MUSTER_POPT_CHOICE("inactive", struct virt_conf, inactive, inactive_names, 0),
	/* Default: as an entry's watch_interval_ms. */
	MUSTER_POPT_INT("address_poll_ms", struct virt_conf, address_poll_ms, 0, 86400000, 10000),
};

static int check_conf(const muster_popts *o, void *state)
{
	struct virt_conf *conf = state;

	conf->pc = o->pc;
	conf->uri_explicit = o->host->cfg_get(o->group, "uri") != NULL;
	return 0;
}

int virt_open(const muster_host *host, muster_plugin_ctx *pc, void **state)
{
	*state = muster_plugin_conf_read(host, pc, sizeof(struct virt_conf), options,
	                                 MUSTER_POPT_COUNT(options), check_conf, virt_close);
	return *state != NULL ? 0 : -1;
}
