#include <config.h>

#include "unknown.h"

#include <stdio.h>
#include <string.h>

#include "lib/error.h"

void unknowns_init(struct unknowns *u, const struct logger *lg, int strict)
{
	memset(u, 0, sizeof(*u));
	u->lg = lg;
	u->strict = strict;
}

void unknown_name(struct unknowns *u, const char *what, const char *name, const char *file,
                  int line, const char *suggestion)
{
	char message[sizeof(u->first)];
	if (!file)
		file = "?";
	if (!u->strict) {
		log_msg(u->lg, MUSTER_LOG_WARNING, "unknown %s '%s' (%s:%d)", what, name, file, line);
		return;
	}
	if (suggestion && *suggestion)
		snprintf(message, sizeof(message), "unknown %s '%s' (%s:%d); did you mean '%s'?", what,
		         name, file, line, suggestion);
	else
		snprintf(message, sizeof(message), "unknown %s '%s' (%s:%d)", what, name, file, line);
	if (u->count++ == 0)
		memcpy(u->first, message, sizeof(message));
	else
		log_msg(u->lg, MUSTER_LOG_ERR, "%s", message);
}

int unknowns_finish(const struct unknowns *u, muster_error *err)
{
	if (!u->strict || u->count == 0)
		return 0;
	if (u->count == 1)
		return error_set(err, MUSTER_ECONFIG, "%s", u->first);
	return error_set(err, MUSTER_ECONFIG, "%s; and %zu more unknown names (above)", u->first,
	                 u->count - 1);
}
