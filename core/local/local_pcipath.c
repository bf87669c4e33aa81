/* PCI paths from sysfs links, and NCCL's reading of them (its
 * src/graph/xml.cc walks a device's path two components at a time, so
 * that a PCIe switch's upstream and downstream ports are one node). */
#include <config.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "local_devices.h"
#include "local_pcipath.h"

#define MAX_DEPTH 64

int pci_is_function(const char *s, size_t len)
{
	static const char form[] = "xxxx:xx:xx.x";
	if (len != sizeof(form) - 1)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (form[i] == 'x' ? !s[i] || !strchr("0123456789abcdef", s[i]) : s[i] != form[i])
			return 0;
	return 1;
}

char *pci_path(const char *root, const char *rroot, const char *path)
{
	char full[PATH_MAX], resolved[PATH_MAX];
	size_t rlen = strlen(rroot);

	if ((size_t)snprintf(full, sizeof(full), "%s%s", root, path) >= sizeof(full) ||
	    !realpath(full, resolved) || strncmp(resolved, rroot, rlen) != 0)
		return NULL;
	char *p = resolved + rlen;
	if (strncmp(p, "/sys/devices/pci", strlen("/sys/devices/pci")) != 0)
		return NULL;
	/* Cut what follows the last function (a virtio or usb child). */
	for (;;) {
		char *last = strrchr(p, '/');
		if (pci_is_function(last + 1, strlen(last + 1)))
			break;
		if (last - p <= (long)strlen("/sys/devices"))
			return NULL;
		*last = '\0';
	}
	return strdup(p);
}

/* The components of a path, at most MAX_DEPTH; their count. */
static size_t split(const char *path, const char **start, size_t *len)
{
	size_t n = 0;
	for (const char *p = path; *p && n < MAX_DEPTH;) {
		p += strspn(p, "/");
		if (!*p)
			break;
		start[n] = p;
		len[n] = strcspn(p, "/");
		p += len[n++];
	}
	return n;
}

size_t pci_shared(const char *a, const char *b)
{
	const char *sa[MAX_DEPTH], *sb[MAX_DEPTH];
	size_t la[MAX_DEPTH], lb[MAX_DEPTH];
	size_t na = split(a, sa, la), nb = split(b, sb, lb), k = 0;
	while (k < na && k < nb && la[k] == lb[k] && memcmp(sa[k], sb[k], la[k]) == 0)
		k++;
	return k;
}

/* The component indices of the switches above the device (the last
 * component), nearest first, as NCCL finds them: up two components at a
 * time while both are PCI functions; the root complex (the CPU) ends it. */
static size_t switches(const char **start, const size_t *len, size_t n, size_t *out)
{
	size_t count = 0;
	for (size_t at = n - 1; at >= 2 && pci_is_function(start[at - 1], len[at - 1]) &&
	                        pci_is_function(start[at - 2], len[at - 2]);
	     at -= 2)
		out[count++] = at - 2;
	return count;
}

int pci_level(const char *a, long numa_a, const char *b, long numa_b)
{
	const char *sa[MAX_DEPTH], *sb[MAX_DEPTH];
	size_t la[MAX_DEPTH], lb[MAX_DEPTH], wa[MAX_DEPTH], wb[MAX_DEPTH];
	size_t na = split(a, sa, la), nb = split(b, sb, lb);
	size_t shared = pci_shared(a, b);

	if (na == nb && shared == na)
		return LINK_SELF;
	size_t ca = switches(sa, la, na, wa), cb = switches(sb, lb, nb, wb);
	/* The nearest switch above both: the same component index, shared. */
	for (size_t i = 0; i < ca; i++)
		for (size_t j = 0; j < cb && wa[i] < shared; j++)
			if (wb[j] == wa[i])
				return i + j == 0 ? LINK_PIX : LINK_PXB;
	return numa_a == numa_b ? LINK_PHB : LINK_SYS;
}
