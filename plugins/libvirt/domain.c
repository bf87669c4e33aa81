/*
 * libvirt: one domain's XML — and a node device's — read with xml.c.
 *
 * From a domain: its UUID, the muster metadata element, the interfaces on
 * the configured network (their MACs), and the passthrough devices (PCI
 * hostdevs and mediated devices) with the node-device name each should
 * have.  The metadata element, in namespace VIRT_NS:
 *
 *   <metadata>
 *     <muster:task xmlns:muster="https://muster.dev/xmlns/libvirt/1"
 *                  job="worker" index="0" port="2222">
 *       <muster:accelerator kind="GPU" count="8"/>
 *     </muster:task>
 *   </metadata>
 *
 * job is required; index, port and accelerators are optional; anything
 * else in the namespace is an error that names the domain, so a typo never
 * silently drops a VM from the cluster.
 */
#include "config.h"
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "virt.h"

static int is(const struct vx_node *n, const char *name)
{
	return strcmp(n->name, name) == 0;
}

static const struct vx_node *child(const struct vx_node *n, const char *name)
{
	return vx_child(n, name);
}

/* An attribute's value, copied into buf; NULL when absent. */
static const char *attr(const struct vx_node *n, const char *name, char *buf, size_t size)
{
	const char *v = vx_attr(n, name);

	if (v == NULL)
		return NULL;
	snprintf(buf, size, "%s", v);
	return buf;
}

static int in_ns(const struct vx_node *n)
{
	const char *ns = vx_ns(n);

	return ns != NULL && strcmp(ns, VIRT_NS) == 0;
}

/* A decimal in [min, max]; -1 when not. */
static int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int valid_job(const char *s)
{
	size_t i;

	if (s[0] == '\0' || strlen(s) > 128)
		return 0;
	for (i = 0; s[i]; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-' || s[i] == '.'))
			return 0;
	return 1;
}

static int valid_kind(const char *s)
{
	size_t i;

	if (s[0] == '\0' || strlen(s) >= sizeof(((struct virt_accel *)0)->kind))
		return 0;
	for (i = 0; s[i]; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-'))
			return 0;
	return 1;
}

#define META "muster metadata (" VIRT_NS ")"

static muster_status bad_meta(struct virt_run *run, const struct virt_domain *d, const char *fmt,
                              ...) MUSTER_PLUGIN_PRINTF(3, 4);
static muster_status bad_meta(struct virt_run *run, const struct virt_domain *d, const char *fmt,
                              ...)
{
	char why[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	run->host->fail(run->call, "domain %s: %s: %s", d->name, META, why);
	return MUSTER_STATUS_UNAVAIL;
}

static muster_status parse_meta(struct virt_run *run, struct virt_domain *d,
                                const struct vx_node *t)
{
	char buf[256];
	const char *v;
	const struct vx_node *c;
	size_t a;

	if (strcmp(vx_local(t), "task") != 0)
		return bad_meta(run, d, "unknown element <%s>; expected <task job=\"...\">",
		                vx_local(t));
	for (a = 0; a < t->nattrs; a++) {
		const char *n = t->attrs[a].name;

		if (strncmp(n, "xmlns", 5) == 0 && (n[5] == '\0' || n[5] == ':'))
			continue;
		if (strcmp(n, "job") != 0 && strcmp(n, "index") != 0 && strcmp(n, "port") != 0)
			return bad_meta(run, d, "<task> has an unknown attribute \"%s\" (job, index, port)",
			                n);
	}
	if ((v = attr(t, "job", buf, sizeof(buf))) == NULL)
		return bad_meta(run, d, "<task> has no job attribute");
	if (!valid_job(v))
		return bad_meta(run, d, "job \"%.64s\" is not a job name (letters, digits, '_', '-', "
		                        "'.')",
		                v);
	if ((d->meta_job = strdup(v)) == NULL)
		return virt_nomem(run);
	if ((v = attr(t, "index", buf, sizeof(buf))) != NULL &&
	    parse_long(v, 0, VIRT_MAX_INDEX, &d->meta_index) < 0)
		return bad_meta(run, d, "index \"%.64s\" is not a task index (0 to 2147483647)", v);
	if ((v = attr(t, "port", buf, sizeof(buf))) != NULL &&
	    parse_long(v, 1, 65535, &d->meta_port) < 0)
		return bad_meta(run, d, "port \"%.64s\" is not a port (1 to 65535)", v);
	for (c = t->child; c != NULL; c = c->next) {
		long count = 1;
		char kind[64];
		size_t k;

		if (!in_ns(c) || strcmp(vx_local(c), "accelerator") != 0)
			return bad_meta(run, d, "<task> holds <%s>; only <accelerator kind=\"GPU\" "
			                        "count=\"N\"/> may appear there",
			                c->name);
		for (a = 0; a < c->nattrs; a++)
			if (strcmp(c->attrs[a].name, "kind") != 0 && strcmp(c->attrs[a].name, "count") != 0 &&
			    strncmp(c->attrs[a].name, "xmlns", 5) != 0)
				return bad_meta(run, d, "<accelerator> has an unknown attribute \"%s\" "
				                        "(kind, count)",
				                c->attrs[a].name);
		if (attr(c, "kind", kind, sizeof(kind)) == NULL)
			return bad_meta(run, d, "<accelerator> has no kind attribute");
		if (!valid_kind(kind))
			return bad_meta(run, d, "accelerator kind \"%.40s\" is not a kind such as GPU",
			                kind);
		if ((v = attr(c, "count", buf, sizeof(buf))) != NULL &&
		    parse_long(v, 0, 1000000, &count) < 0)
			return bad_meta(run, d, "accelerator %s: count \"%.40s\" is not a count", kind, v);
		d->meta_has_accel = 1;
		for (k = 0; k < d->nmeta_accel; k++)
			if (strcmp(d->meta_accel[k].kind, kind) == 0)
				break;
		if (k == d->nmeta_accel) {
			if (k == VIRT_MAX_KINDS)
				return bad_meta(run, d, "too many accelerator kinds");
			snprintf(d->meta_accel[k].kind, sizeof(d->meta_accel[k].kind), "%s", kind);
			d->nmeta_accel++;
		}
		d->meta_accel[k].count += count;
	}
	d->has_meta = 1;
	return MUSTER_STATUS_SUCCESS;
}

/* "0x3b" (libvirt writes hex with 0x) or decimal. */
static int addr_num(const struct vx_node *a, const char *name, unsigned long max, unsigned long *out)
{
	char buf[32], *end;
	const char *v = attr(a, name, buf, sizeof(buf));

	if (v == NULL)
		return -1;
	errno = 0;
	*out = strtoul(v, &end, 0);
	return errno != 0 || *end != '\0' || end == v || *out > max ? -1 : 0;
}

static int add_hostdev(struct virt_run *run, struct virt_domain *d, const struct vx_node *h)
{
	const struct vx_node *src = child(h, "source"), *a = src != NULL ? child(src, "address") : NULL;
	char type[16], buf[64];
	struct virt_hostdev *hd, *grown;

	if (attr(h, "mode", buf, sizeof(buf)) == NULL || strcmp(buf, "subsystem") != 0 ||
	    attr(h, "type", type, sizeof(type)) == NULL ||
	    (strcmp(type, "pci") != 0 && strcmp(type, "mdev") != 0))
		return 0; /* USB, SCSI, capabilities: not accelerators */
	grown = realloc(d->hostdevs, (d->nhostdevs + 1) * sizeof(*d->hostdevs));
	if (grown == NULL)
		return -1;
	d->hostdevs = grown;
	hd = &d->hostdevs[d->nhostdevs++];
	memset(hd, 0, sizeof(*hd));
	hd->mdev = strcmp(type, "mdev") == 0;
	if (hd->mdev) {
		char *c;

		if (a == NULL || attr(a, "uuid", buf, sizeof(buf)) == NULL)
			return 0; /* unidentified */
		snprintf(hd->nodedev, sizeof(hd->nodedev), "mdev_%s", buf);
		for (c = hd->nodedev; *c; c++)
			if (*c == '-')
				*c = '_';
	} else {
		unsigned long dom, bus, slot, fn;

		if (a == NULL || addr_num(a, "domain", 0xffff, &dom) < 0 ||
		    addr_num(a, "bus", 0xff, &bus) < 0 || addr_num(a, "slot", 0x1f, &slot) < 0 ||
		    addr_num(a, "function", 0x7, &fn) < 0)
			return 0;
		snprintf(hd->nodedev, sizeof(hd->nodedev), "pci_%04lx_%02lx_%02lx_%lx", dom, bus,
		         slot, fn);
	}
	(void)run;
	return 0;
}

static int add_interface(struct virt_run *run, struct virt_domain *d, const struct vx_node *i)
{
	const char *net = run->conf->network;
	const struct vx_node *src = child(i, "source"), *mac = child(i, "mac");
	char buf[256], macbuf[64];
	char **grown;

	if (net == NULL || src == NULL || mac == NULL)
		return 0;
	if (!((attr(src, "network", buf, sizeof(buf)) != NULL && strcmp(buf, net) == 0) ||
	      (attr(src, "bridge", buf, sizeof(buf)) != NULL && strcmp(buf, net) == 0)))
		return 0;
	if (attr(mac, "address", macbuf, sizeof(macbuf)) == NULL)
		return 0;
	grown = realloc(d->if_macs, (d->nif_macs + 1) * sizeof(*d->if_macs));
	if (grown == NULL)
		return -1;
	d->if_macs = grown;
	if ((d->if_macs[d->nif_macs] = strdup(macbuf)) == NULL)
		return -1;
	d->nif_macs++;
	return 0;
}

muster_status virt_domain_parse(struct virt_run *run, struct virt_domain *d, const char *xml)
{
	struct vx_node *root = vx_parse(xml);
	const struct vx_node *md, *devs, *c;
	muster_status st = MUSTER_STATUS_SUCCESS;
	int nmeta = 0;

	d->meta_index = -1;
	d->meta_port = -1;
	d->if_restricted = run->conf->network != NULL;
	if (root == NULL || !is(root, "domain")) {
		vx_free(root);
		run->host->fail(run->call, "domain %s: libvirt's XML description cannot be read",
		                d->name);
		return MUSTER_STATUS_UNAVAIL;
	}
	if ((md = child(root, "metadata")) != NULL)
		for (c = md->child; c != NULL && st == MUSTER_STATUS_SUCCESS; c = c->next) {
			if (!in_ns(c))
				continue;
			if (nmeta++ > 0) {
				st = bad_meta(run, d, "more than one element in the namespace");
				break;
			}
			st = parse_meta(run, d, c);
		}
	if (st == MUSTER_STATUS_SUCCESS && (devs = child(root, "devices")) != NULL)
		for (c = devs->child; c != NULL; c = c->next) {
			int rc = 0;

			if (is(c, "hostdev"))
				rc = add_hostdev(run, d, c);
			else if (is(c, "interface"))
				rc = add_interface(run, d, c);
			if (rc < 0) {
				st = virt_nomem(run);
				break;
			}
		}
	vx_free(root);
	return st;
}

static char *trimmed(const char *s)
{
	const char *e;

	if (s == NULL)
		return NULL;
	while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\n' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	return strndup(s, (size_t)(e - s));
}

int virt_nodedev_parse(const char *xml, struct virt_nodedev *n)
{
	struct vx_node *root = vx_parse(xml);
	const struct vx_node *c, *p;
	const char *v;

	if (root == NULL || !is(root, "device")) {
		vx_free(root);
		return -1;
	}
	for (c = root->child; c != NULL; c = c->next) {
		if (is(c, "parent")) {
			free(n->parent);
			n->parent = trimmed(c->text);
			continue;
		}
		if (!is(c, "capability") || (v = vx_attr(c, "type")) == NULL)
			continue;
		if (strcmp(v, "pci") == 0) {
			for (p = c->child; p != NULL; p = p->next) {
				if (is(p, "vendor") && (v = vx_attr(p, "id")) != NULL)
					n->vendor = (unsigned)strtoul(v, NULL, 16);
				if (is(p, "class") && p->text != NULL)
					n->pclass = (unsigned)strtoul(p->text, NULL, 16);
			}
		} else if (strcmp(v, "mdev") == 0) {
			for (p = c->child; p != NULL; p = p->next)
				if (is(p, "type") && (v = vx_attr(p, "id")) != NULL) {
					free(n->mdev_type);
					n->mdev_type = strdup(v);
				}
		}
	}
	vx_free(root);
	return 0;
}

void virt_domain_clear(struct virt_domain *d)
{
	size_t i;

	if (d->dom != NULL)
		virDomainFree(d->dom);
	free(d->name);
	free(d->meta_job);
	for (i = 0; i < d->nif_macs; i++)
		free(d->if_macs[i]);
	free(d->if_macs);
	free(d->hostdevs);
	free(d->address);
	memset(d, 0, sizeof(*d));
}
