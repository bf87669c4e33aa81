/* Keys that one mode of a plugin does not take (popts.h). */
#include <config.h>

#include "popts.h"

int popt_refuse(const muster_popts *o, const char *const *keys, const char *why)
{
	for (size_t i = 0; keys[i] != NULL; i++) {
		const muster_cfg *at = o->host->cfg_get(o->group, keys[i]);

		if (at != NULL) {
			o->host->open_error(o->pc, at, "%s does not apply to %s", keys[i], why);
			return -1;
		}
	}
	return 0;
}
