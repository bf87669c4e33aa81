/*
 * Fuzz target: what the libvirt backend reads of a domain — its XML
 * (libxml2: the muster metadata, interfaces, hostdevs), the same bytes as
 * a node device's XML, and the choice of an address among the interfaces
 * virDomainInterfaceAddresses reports.  The input is cut at FUZZ_SEP: the
 * XML, then the interfaces, one a line: "NAME MAC TYPE:ADDR ..." ("-" for
 * none; TYPE 0 is IPv4, 1 IPv6, as libvirt numbers them).  The first byte
 * picks the entry's options (network, interface, family).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "fuzz.h"
#include "virt.h"

/* A NUL-terminated copy of a part. */
static char *text_of(const uint8_t *p, size_t len)
{
	char *s = malloc(len + 1);

	if (s != NULL) {
		memcpy(s, p, len);
		s[len] = '\0';
	}
	return s;
}

static char *field(char *s) { return strcmp(s, "-") == 0 ? NULL : s; }

/* The interfaces of `text` (modified in place: the strings point into it). */
static int interfaces(char *text, virDomainInterfacePtr **out)
{
	virDomainInterfacePtr *v = NULL;
	char *line, *save = NULL;
	int n = 0;

	for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		char *tok, *s2 = NULL, *name = strtok_r(line, " ", &s2), *mac = strtok_r(NULL, " ", &s2);
		virDomainInterfacePtr *p = realloc(v, (size_t)(n + 1) * sizeof(*v));
		virDomainInterfacePtr ifc;

		if (p == NULL)
			break;
		v = p;
		if ((ifc = calloc(1, sizeof(*ifc))) == NULL)
			break;
		v[n++] = ifc;
		ifc->name = name ? field(name) : NULL;
		ifc->hwaddr = mac ? field(mac) : NULL;
		while ((tok = strtok_r(NULL, " ", &s2)) != NULL) {
			virDomainIPAddressPtr a = realloc(ifc->addrs, (ifc->naddrs + 1) * sizeof(*a));
			char *colon = strchr(tok, ':');

			if (a == NULL)
				break;
			ifc->addrs = a;
			a = &ifc->addrs[ifc->naddrs++];
			memset(a, 0, sizeof(*a));
			a->type = atoi(tok);
			a->addr = colon ? field(colon + 1) : NULL;
		}
	}
	*out = v;
	return n;
}

static void interfaces_free(virDomainInterfacePtr *v, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(v[i]->addrs);
		free(v[i]);
	}
	free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct virt_conf conf;
	struct virt_run run;
	struct virt_domain d;
	struct virt_nodedev nd;
	struct fuzz_call fc;
	const uint8_t *part;
	char *xml, *text = NULL;
	size_t len;
	muster_status st;

	if (size < 1)
		return 0;
	memset(&conf, 0, sizeof(conf));
	if (data[0] & 1)
		conf.network = (char *)"default";
	if (data[0] & 2)
		conf.interface = (char *)"vnet0";
	conf.family = (enum virt_family)((data[0] >> 2) % 3);
	data++, size--;
	part = fuzz_part(&data, &size, &len);
	if ((xml = text_of(part, len)) == NULL)
		return 0;
	if ((part = fuzz_part(&data, &size, &len)) != NULL && (text = text_of(part, len)) == NULL) {
		free(xml);
		return 0;
	}
	if (fuzz_call_begin(&fc, NULL) != 0) {
		free(xml);
		free(text);
		return 0;
	}
	conf.pc = &fc.pc;
	memset(&run, 0, sizeof(run));
	run.host = &host_services;
	run.call = &fc.call;
	run.conf = &conf;
	memset(&d, 0, sizeof(d));
	virt_xml_init();
	st = (d.name = strdup("fuzz")) != NULL ? virt_domain_parse(&run, &d, xml)
	                                         : MUSTER_STATUS_UNAVAIL;
	if (st == MUSTER_STATUS_SUCCESS && text != NULL) {
		virDomainInterfacePtr *ifaces;
		int n = interfaces(text, &ifaces);

		virt_address_pick(&run, &d, ifaces, n);
		interfaces_free(ifaces, n);
	}
	memset(&nd, 0, sizeof(nd));
	virt_nodedev_parse(xml, &nd);
	free(nd.name);
	free(nd.parent);
	free(nd.mdev_type);
	virt_domain_clear(&d);
	free(xml);
	free(text);
	fuzz_call_end(&fc, MUSTER_STATUS_UNAVAIL);
	return 0;
}
