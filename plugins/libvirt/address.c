/*
 * libvirt: a domain's address, from virDomainInterfaceAddresses.
 *
 * The sources are asked in the configured order (lease, agent, arp by
 * default); the first that yields a usable address answers.  Usable: on
 * an allowed interface (network = ...: its MAC is on that network;
 * interface = ...: the name libvirt reports or the MAC), not loopback, not
 * IPv6 link-local, of the family asked for.  With family = "any", IPv4 is
 * preferred over IPv6 within that source's answer; IPv6 goes in brackets.
 *
 * libvirt refuses the agent source on a read-only connection (it would let
 * a read-only user talk to the guest); the plugin always connects
 * read-only, so after the first refusal the agent is not asked again in
 * this resolve, and the refusal is logged once at debug level.
 */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libvirt/virterror.h>

#include "plugins/common/buf.h"
#include "virt.h"

static int iface_allowed(const struct virt_run *run, const struct virt_domain *d,
                         const virDomainInterface *ifc)
{
	const char *want = run->conf->interface;
	size_t i;

	if (d->if_restricted) {
		if (ifc->hwaddr == NULL)
			return 0;
		for (i = 0; i < d->nif_macs; i++)
			if (strcasecmp(d->if_macs[i], ifc->hwaddr) == 0)
				break;
		if (i == d->nif_macs)
			return 0;
	}
	if (want != NULL && !(ifc->name != NULL && strcmp(ifc->name, want) == 0) &&
	    !(ifc->hwaddr != NULL && strcasecmp(ifc->hwaddr, want) == 0))
		return 0;
	return 1;
}

static int usable(const virDomainIPAddress *a)
{
	if (a->addr == NULL || a->addr[0] == '\0')
		return 0;
	if (a->type == VIR_IP_ADDR_TYPE_IPV4)
		return strncmp(a->addr, "127.", 4) != 0 && strcmp(a->addr, "0.0.0.0") != 0;
	if (a->type == VIR_IP_ADDR_TYPE_IPV6)
		return strcmp(a->addr, "::1") != 0 && strncasecmp(a->addr, "fe8", 3) != 0 &&
		       strncasecmp(a->addr, "fe9", 3) != 0 && strncasecmp(a->addr, "fea", 3) != 0 &&
		       strncasecmp(a->addr, "feb", 3) != 0;
	return 0;
}

/* The best address in one answer: IPv4 first unless family says otherwise. */
const virDomainIPAddress *virt_address_pick(const struct virt_run *run,
                                            const struct virt_domain *d,
                                            virDomainInterfacePtr *ifaces, int n)
{
	const virDomainIPAddress *v4 = NULL, *v6 = NULL;
	int i;
	unsigned j;

	for (i = 0; i < n; i++) {
		if (!iface_allowed(run, d, ifaces[i]))
			continue;
		for (j = 0; j < ifaces[i]->naddrs; j++) {
			const virDomainIPAddress *a = &ifaces[i]->addrs[j];

			if (!usable(a))
				continue;
			if (a->type == VIR_IP_ADDR_TYPE_IPV4 && v4 == NULL)
				v4 = a;
			if (a->type == VIR_IP_ADDR_TYPE_IPV6 && v6 == NULL)
				v6 = a;
		}
	}
	switch (run->conf->family) {
	case VIRT_FAMILY_IPV4: return v4;
	case VIRT_FAMILY_IPV6: return v6;
	default: return v4 != NULL ? v4 : v6;
	}
}

static void free_ifaces(virDomainInterfacePtr *ifaces, int n)
{
	int i;

	if (ifaces == NULL)
		return;
	for (i = 0; i < n; i++)
		virDomainInterfaceFree(ifaces[i]);
	free(ifaces);
}

/* Appends to a message buffer, truncating quietly. */
static void appendf(char *buf, size_t size, const char *fmt, ...) MUSTER_PLUGIN_PRINTF(3, 4);
static void appendf(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

muster_status virt_address(struct virt_run *run, struct virt_domain *d, long port)
{
	const struct virt_conf *conf = run->conf;
	char why[600];
	size_t s;

	why[0] = '\0';
	for (s = 0; s < conf->nsources; s++) {
		unsigned src = conf->sources[s];
		virDomainInterfacePtr *ifaces = NULL;
		const virDomainIPAddress *a;
		int n;

		if (src == VIR_DOMAIN_INTERFACE_ADDRESSES_SRC_AGENT && run->agent_denied) {
			appendf(why, sizeof(why), "%sagent: refused on a read-only connection",
			        why[0] ? "; " : "");
			continue;
		}
		run->calls++;
		n = virDomainInterfaceAddresses(d->dom, &ifaces, src, 0);
		if (n < 0) {
			if (src == VIR_DOMAIN_INTERFACE_ADDRESSES_SRC_AGENT &&
			    virt_last_error_code() == VIR_ERR_OPERATION_DENIED) {
				run->agent_denied = 1;
				run->host->log(conf->pc, MUSTER_LOG_DEBUG,
				               "the agent source is not asked: %s", virt_last_error());
			}
			appendf(why, sizeof(why), "%s%s: %s", why[0] ? "; " : "",
			        virt_source_name(src), virt_last_error());
			continue;
		}
		a = virt_address_pick(run, d, ifaces, n);
		if (a != NULL) {
			d->address = a->type == VIR_IP_ADDR_TYPE_IPV6
			                     ? plugin_asprintf("[%s]:%ld", a->addr, port)
			                     : plugin_asprintf("%s:%ld", a->addr, port);
			run->host->log(conf->pc, MUSTER_LOG_DEBUG, "domain %s: %s from %s", d->name,
			               a->addr, virt_source_name(src));
			free_ifaces(ifaces, n);
			return d->address != NULL ? MUSTER_STATUS_SUCCESS : virt_nomem(run);
		}
		free_ifaces(ifaces, n);
		appendf(why, sizeof(why), "%s%s: no %saddress%s%s%s%s",
			                       why[0] ? "; " : "", virt_source_name(src),
			                       conf->family == VIRT_FAMILY_IPV4   ? "IPv4 "
			                       : conf->family == VIRT_FAMILY_IPV6 ? "IPv6 "
			                                                          : "",
			                       conf->network ? " on network " : "",
			                       conf->network ? conf->network : "",
			                       conf->interface ? " on interface " : "",
			                       conf->interface ? conf->interface : "");
	}
	run->host->fail(run->call, "domain %s is running but has no address yet (%s)", d->name, why);
	return MUSTER_STATUS_TRYAGAIN;
}
