/* Where PCI devices sit: their sysfs paths, the link level between two of
 * them as NCCL names it, and the network interface nearest a device. */
#ifndef MUSTER_CORE_LOCAL_PCIPATH_H
#define MUSTER_CORE_LOCAL_PCIPATH_H

#include <stddef.h>

/* Whether s (len bytes) is a PCI function's name as sysfs writes it,
 * "dddd:bb:dd.f" in lower-case hex. */
int pci_is_function(const char *s, size_t len);

/* The device path that the link `path` (under root) resolves to, relative
 * to root and cut after its last PCI function ("/sys/devices/pci0000:00/
 * 0000:00:01.0/0000:01:00.0"); NULL when it is not under a PCI root or
 * out of memory.  `rroot` is realpath(root), "" for the machine's own. */
char *pci_path(const char *root, const char *rroot, const char *path);

/* LINK_PIX, LINK_PXB, LINK_PHB or LINK_SYS between the devices at paths
 * a and b (on NUMA nodes numa_a and numa_b), as NCCL reads sysfs: a PCIe
 * switch is the grandparent of a device (its upstream port above the
 * downstream one); one switch between them is PIX, several PXB; through
 * the CPU PHB, across NUMA nodes SYS.  LINK_SELF for one device. */
int pci_level(const char *a, long numa_a, const char *b, long numa_b);

/* Path components a and b share ("/sys/devices/pci0000:00" is 3). */
size_t pci_shared(const char *a, const char *b);

#endif
