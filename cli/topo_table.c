/* muster topo's table: a row per device, then the link matrix between them
 * as `nvidia-smi topo -m` draws it, both fitted to the terminal's width. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "table.h"

#define LABEL_MAX 112
/* A UUID column narrower than this is left out rather than cut. */
#define UUID_MIN 12

/* Text from sysfs and /proc, with anything but printable ASCII as '?'. */
static void printable(char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			*s = '?';
}

/* "GPU0", or a MIG device's own name; with its vendor in front when the
 * machine has devices of that kind from two vendors. */
static void label(const muster_devices *d, size_t i, char *buf, size_t size)
{
	const char *kind, *vendor, *id, *k2, *v2;
	int mixed = 0;
	muster_devices_at(d, i, &kind, &vendor, &id);
	for (size_t j = 0; muster_devices_at(d, j, &k2, &v2, NULL) == 0; j++)
		mixed |= strcmp(k2, kind) == 0 && strcmp(v2, vendor) != 0;
	int numeric = id[0] && strspn(id, "0123456789") == strlen(id);
	snprintf(buf, size, "%s%s%s%s", mixed ? vendor : "", mixed ? ":" : "",
	         numeric ? kind : "", id);
	printable(buf);
}

static size_t widest(const char *const *cells, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		if (cells[i] && strlen(cells[i]) > w)
			w = strlen(cells[i]);
	return w;
}

/* The rows; the UUIDs are cut to fit `width` with "..." (a prefix is what
 * CUDA_VISIBLE_DEVICES takes), or left out when too little room is left. */
static int device_rows(const muster_devices *d, size_t n, size_t width)
{
	enum { NCOL = 6 };
	static const char *const head[NCOL] = { "DEVICE", "BUS ID", "NUMA", "CPUS", "NIC", "UUID" };
	char cell[NCOL][LABEL_MAX];
	const char *row[NCOL];
	struct table *t = table_new(NCOL);
	int rc = t && table_add(t, head) == 0 ? 0 : -1;

	for (size_t i = 0; i < n && rc == 0; i++) {
		muster_device_topology topo = MUSTER_DEVICE_TOPOLOGY_INIT;
		muster_devices_topology_at(d, i, &topo);
		label(d, i, cell[0], LABEL_MAX);
		snprintf(cell[1], LABEL_MAX, "%s", topo.pci_bus_id ? topo.pci_bus_id : "-");
		if (topo.numa_node >= 0)
			snprintf(cell[2], LABEL_MAX, "%ld", topo.numa_node);
		else
			snprintf(cell[2], LABEL_MAX, "-");
		snprintf(cell[3], LABEL_MAX, "%s", topo.cpus ? topo.cpus : "-");
		if (topo.nic)
			snprintf(cell[4], LABEL_MAX, "%s (%s)", topo.nic, topo.nic_link);
		else
			snprintf(cell[4], LABEL_MAX, "-");
		snprintf(cell[5], LABEL_MAX, "%s", topo.uuid ? topo.uuid : "-");
		for (size_t c = 0; c < NCOL; c++) {
			printable(cell[c]);
			row[c] = cell[c];
		}
		rc = table_add(t, row);
	}
	if (rc == 0 && table_fit(t, width, NCOL - 1, UUID_MIN) < 0)
		table_hide(t, NCOL - 1);
	if (rc == 0)
		table_print(t);
	table_free(t);
	return rc;
}

/* The link matrix, in blocks of as many columns as fit. */
static int link_matrix(const muster_devices *d, size_t n, size_t width)
{
	char(*names)[LABEL_MAX] = calloc(n, sizeof(*names));
	const char **row = calloc(n + 1, sizeof(*row));
	int rc = names && row ? 0 : -1;

	for (size_t i = 0; i < n && rc == 0; i++) {
		label(d, i, names[i], LABEL_MAX);
		row[i + 1] = names[i];
	}
	size_t first_w = rc == 0 ? widest(row + 1, n) : 0, cell_w = first_w > 3 ? first_w : 3;
	size_t per = width > first_w + 2 ? (width - first_w) / (cell_w + 2) : n;
	per = per == 0 ? 1 : per > n ? n : per;
	for (size_t from = 0; from < n && rc == 0; from += per) {
		size_t cols = from + per > n ? n - from : per;
		struct table *t = table_new(cols + 1);
		row[0] = "";
		for (size_t c = 0; c < cols; c++)
			row[c + 1] = names[from + c];
		if (!t || table_add(t, row) < 0)
			rc = -1;
		for (size_t i = 0; i < n && rc == 0; i++) {
			row[0] = names[i];
			for (size_t c = 0; c < cols; c++)
				row[c + 1] = muster_devices_link(d, i, from + c); /* NULL: "-" */
			rc = table_add(t, row);
		}
		if (rc == 0) {
			out_puts(from ? "\n" : "");
			table_print(t);
		}
		table_free(t);
	}
	free(names);
	free(row);
	return rc;
}

int topo_print_table(const struct cli_global *g, const muster_devices *d)
{
	size_t n = muster_devices_count(d), width = cli_term_width();
	const char *vendor;
	int nvidia = 0;

	if (n == 0) {
		cli_warn(g, "topo: no accelerators on this machine");
		return 0;
	}
	for (size_t i = 0; muster_devices_at(d, i, NULL, &vendor, NULL) == 0; i++)
		nvidia |= strcmp(vendor, "nvidia") == 0;
	if (device_rows(d, n, width) < 0)
		return cli_fail(MUSTER_ENOMEM, NULL);
	if (n < 2)
		return 0;
	out_puts("\n");
	if (link_matrix(d, n, width) < 0)
		return cli_fail(MUSTER_ENOMEM, NULL);
	out_puts("\nLinks, as NCCL names them:\n"
	         "  X    the same device\n"
	         "  NVL  NVLink, directly or through NVSwitches\n"
	         "  PIX  through one PCIe switch\n"
	         "  PXB  through several PCIe switches\n"
	         "  PHB  through a PCIe host bridge (the CPU)\n"
	         "  SYS  across NUMA nodes\n");
	if (nvidia && !muster_devices_nvlink_checked(d))
		out_puts("NVLinks were not looked for (no NVML, or --sysroot):\n"
		         "NVIDIA GPUs show their PCIe level.\n");
	return 0;
}
