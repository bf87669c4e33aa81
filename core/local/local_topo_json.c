/* muster_topology_to_json(): muster topo --format json. */
#include <config.h>

#include "lib/error.h"
#include "emit/jsonw.h"
#include "local_devices.h"

static void key(struct jsonw *w, const char *name)
{
	jsonw_char(w, ',');
	jsonw_string(w, name);
	jsonw_char(w, ':');
}

/* A string, or null when unknown. */
static void string_or_null(struct jsonw *w, const char *name, const char *value)
{
	key(w, name);
	if (value && *value)
		jsonw_string(w, value);
	else
		jsonw_raw(w, "null");
}

MUSTER_API int muster_topology_to_json(char **out, const muster_devices *d, muster_error *err)
{
	if (!out || !d)
		return error_set(err, MUSTER_EINVAL, "muster_topology_to_json: NULL argument");
	struct jsonw w;
	jsonw_init(&w);
	jsonw_raw(&w, "{\"devices\":[");
	for (size_t i = 0; i < d->n; i++) {
		const struct device *v = &d->dev[i];
		jsonw_raw(&w, i ? ",{\"kind\":" : "{\"kind\":");
		jsonw_string(&w, v->kind);
		string_or_null(&w, "vendor", v->vendor);
		string_or_null(&w, "id", v->id);
		string_or_null(&w, "pci_bus_id", v->bus);
		string_or_null(&w, "uuid", v->uuid);
		key(&w, "numa_node");
		if (v->numa >= 0)
			jsonw_long(&w, v->numa);
		else
			jsonw_raw(&w, "null");
		string_or_null(&w, "cpus", v->cpus);
		string_or_null(&w, "socket_cpus", v->socket_cpus);
		string_or_null(&w, "nic", v->nic);
		string_or_null(&w, "nic_link", v->nic[0] ? link_name(v->nic_link) : NULL);
		key(&w, "links");
		jsonw_char(&w, '[');
		for (size_t j = 0; j < d->n; j++) {
			const char *level = d->links ? link_name(d->links[i * d->n + j]) : NULL;
			if (j)
				jsonw_char(&w, ',');
			if (level)
				jsonw_string(&w, level);
			else
				jsonw_raw(&w, "null");
		}
		jsonw_raw(&w, "]}");
	}
	jsonw_raw(&w, d->nvlink_checked ? "],\"nvlink_checked\":true}" : "],\"nvlink_checked\":false}");
	*out = jsonw_finish(&w);
	return *out ? 0 : error_set(err, MUSTER_ENOMEM, "out of memory");
}
