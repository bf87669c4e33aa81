/*
 * libvirt: one domain's XML — and a node device's — read with libxml2.
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
#include <config.h>

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "virt.h"

/* libvirt's descriptions are a few KiB; this only keeps the length an int. */
#define VIRT_MAX_XML ((size_t)64 * 1024 * 1024)

static pthread_once_t xml_once = PTHREAD_ONCE_INIT;

static void xml_init(void)
{
	xmlInitParser();
}

/* libxml2's globals are not thread-safe before xmlInitParser(), and the
 * host may resolve on several threads; it is never cleaned up, as other
 * users of libxml2 in the process (libvirt, the host) share it. */
void virt_xml_init(void)
{
	pthread_once(&xml_once, xml_init);
}

/* The document, or NULL when not well-formed.  Never the network, never a
 * word on stderr, and no DTD: libvirt never writes one, so one means
 * someone else's input, and its entities are nothing to expand. */
static xmlDocPtr read_xml(const char *xml)
{
	size_t len = strlen(xml);
	xmlDocPtr doc;

	if (len > VIRT_MAX_XML)
		return NULL;
	virt_xml_init();
	doc = xmlReadMemory(xml, (int)len, NULL, NULL,
	                    XML_PARSE_NONET | XML_PARSE_NOBLANKS | XML_PARSE_NOERROR |
	                            XML_PARSE_NOWARNING);
	if (doc != NULL && xmlGetIntSubset(doc) != NULL) {
		xmlFreeDoc(doc);
		return NULL;
	}
	return doc;
}

static const char *name_of(xmlNode *n)
{
	return (const char *)n->name;
}

/* An element outside any namespace (libvirt's own) with this name. */
static int is(xmlNode *n, const char *name)
{
	return n != NULL && n->type == XML_ELEMENT_NODE && n->ns == NULL &&
	       strcmp(name_of(n), name) == 0;
}

static xmlNode *child(xmlNode *n, const char *name)
{
	xmlNode *c;

	for (c = xmlFirstElementChild(n); c != NULL; c = xmlNextElementSibling(c))
		if (is(c, name))
			return c;
	return NULL;
}

/* An attribute (outside any namespace), copied into buf; NULL when absent. */
static const char *attr(xmlNode *n, const char *name, char *buf, size_t size)
{
	xmlChar *v = xmlGetNoNsProp(n, (const xmlChar *)name);

	if (v == NULL)
		return NULL;
	snprintf(buf, size, "%s", (const char *)v);
	xmlFree(v);
	return buf;
}

static int in_ns(xmlNode *n)
{
	return n->ns != NULL && n->ns->href != NULL &&
	       strcmp((const char *)n->ns->href, VIRT_NS) == 0;
}

/* "prefix:local" as written, for messages. */
static const char *qname(const xmlNs *ns, const xmlChar *local, char *buf, size_t size)
{
	if (ns != NULL && ns->prefix != NULL)
		snprintf(buf, size, "%s:%s", (const char *)ns->prefix, (const char *)local);
	else
		snprintf(buf, size, "%s", (const char *)local);
	return buf;
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

/* The first attribute that is not one of `known` (NULL-terminated), as
 * written; NULL when there is none.  Namespace declarations are not
 * attributes to libxml2, so they never show up here. */
static const char *unknown_attr(xmlNode *n, const char *const *known, char *buf,
                                size_t size)
{
	const xmlAttr *a;
	size_t i;

	for (a = n->properties; a != NULL; a = a->next) {
		for (i = 0; known[i] != NULL; i++)
			if (a->ns == NULL && strcmp((const char *)a->name, known[i]) == 0)
				break;
		if (known[i] == NULL)
			return qname(a->ns, a->name, buf, size);
	}
	return NULL;
}

static const char *const task_attrs[] = { "job", "index", "port", NULL };
static const char *const accel_attrs[] = { "kind", "count", NULL };

static muster_status parse_meta(struct virt_run *run, struct virt_domain *d, xmlNode *t)
{
	char buf[256];
	const char *v;
	xmlNode *c;

	if (strcmp(name_of(t), "task") != 0)
		return bad_meta(run, d, "unknown element <%s>; expected <task job=\"...\">",
		                name_of(t));
	if ((v = unknown_attr(t, task_attrs, buf, sizeof(buf))) != NULL)
		return bad_meta(run, d, "<task> has an unknown attribute \"%s\" (job, index, port)", v);
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
	/* Text and comments inside <task> mean nothing; elements must. */
	for (c = xmlFirstElementChild(t); c != NULL; c = xmlNextElementSibling(c)) {
		long count = 1;
		char kind[64];
		size_t k;

		if (!in_ns(c) || strcmp(name_of(c), "accelerator") != 0)
			return bad_meta(run, d, "<task> holds <%s>; only <accelerator kind=\"GPU\" "
			                        "count=\"N\"/> may appear there",
			                qname(c->ns, c->name, buf, sizeof(buf)));
		if ((v = unknown_attr(c, accel_attrs, buf, sizeof(buf))) != NULL)
			return bad_meta(run, d, "<accelerator> has an unknown attribute \"%s\" "
			                        "(kind, count)",
			                v);
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
static int addr_num(xmlNode *a, const char *name, unsigned long max, unsigned long *out)
{
	char buf[32], *end;
	const char *v = attr(a, name, buf, sizeof(buf));

	if (v == NULL)
		return -1;
	errno = 0;
	*out = strtoul(v, &end, 0);
	return errno != 0 || *end != '\0' || end == v || *out > max ? -1 : 0;
}

static int add_hostdev(struct virt_domain *d, xmlNode *h)
{
	xmlNode *src = child(h, "source"), *a = src != NULL ? child(src, "address") : NULL;
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
	return 0;
}

static int add_interface(struct virt_run *run, struct virt_domain *d, xmlNode *i)
{
	const char *net = run->conf->network;
	xmlNode *src = child(i, "source"), *mac = child(i, "mac");
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
	xmlDoc *doc = read_xml(xml);
	xmlNode *root = doc != NULL ? xmlDocGetRootElement(doc) : NULL, *md, *devs, *c;
	muster_status st = MUSTER_STATUS_SUCCESS;
	int nmeta = 0;

	d->meta_index = -1;
	d->meta_port = -1;
	d->if_restricted = run->conf->network != NULL;
	if (!is(root, "domain")) {
		xmlFreeDoc(doc);
		run->host->fail(run->call, "domain %s: libvirt's XML description cannot be read",
		                d->name);
		return MUSTER_STATUS_UNAVAIL;
	}
	if ((md = child(root, "metadata")) != NULL)
		for (c = xmlFirstElementChild(md); c != NULL; c = xmlNextElementSibling(c)) {
			if (!in_ns(c))
				continue;
			if (nmeta++ > 0) {
				st = bad_meta(run, d, "more than one element in the namespace");
				break;
			}
			if ((st = parse_meta(run, d, c)) != MUSTER_STATUS_SUCCESS)
				break;
		}
	if (st == MUSTER_STATUS_SUCCESS && (devs = child(root, "devices")) != NULL)
		for (c = xmlFirstElementChild(devs); c != NULL; c = xmlNextElementSibling(c)) {
			int rc = 0;

			if (is(c, "hostdev"))
				rc = add_hostdev(d, c);
			else if (is(c, "interface"))
				rc = add_interface(run, d, c);
			if (rc < 0) {
				st = virt_nomem(run);
				break;
			}
		}
	xmlFreeDoc(doc);
	return st;
}

/* An element's text without surrounding white space, freshly allocated. */
static char *trimmed_text(xmlNode *n)
{
	xmlChar *content = xmlNodeGetContent(n);
	const char *s = (const char *)content, *e;
	char *out;

	if (s == NULL)
		return NULL;
	while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\n' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	out = strndup(s, (size_t)(e - s));
	xmlFree(content);
	return out;
}

/* A hexadecimal number from an element's text or an attribute ("0x10de"). */
static unsigned hex_of(const char *s)
{
	return s != NULL ? (unsigned)strtoul(s, NULL, 16) : 0;
}

int virt_nodedev_parse(const char *xml, struct virt_nodedev *n)
{
	xmlDoc *doc = read_xml(xml);
	xmlNode *root = doc != NULL ? xmlDocGetRootElement(doc) : NULL, *c, *p;
	char type[16], buf[128];

	if (!is(root, "device")) {
		xmlFreeDoc(doc);
		return -1;
	}
	for (c = xmlFirstElementChild(root); c != NULL; c = xmlNextElementSibling(c)) {
		if (is(c, "parent")) {
			free(n->parent);
			n->parent = trimmed_text(c);
			continue;
		}
		if (!is(c, "capability") || attr(c, "type", type, sizeof(type)) == NULL)
			continue;
		for (p = xmlFirstElementChild(c); p != NULL; p = xmlNextElementSibling(p)) {
			if (strcmp(type, "pci") == 0 && is(p, "vendor") &&
			    attr(p, "id", buf, sizeof(buf)) != NULL)
				n->vendor = hex_of(buf);
			if (strcmp(type, "pci") == 0 && is(p, "class")) {
				char *text = trimmed_text(p);

				n->pclass = hex_of(text);
				free(text);
			}
			if (strcmp(type, "mdev") == 0 && is(p, "type") &&
			    attr(p, "id", buf, sizeof(buf)) != NULL) {
				free(n->mdev_type);
				n->mdev_type = strdup(buf);
			}
		}
	}
	xmlFreeDoc(doc);
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
