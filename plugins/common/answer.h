/* A resolve's answer other than success, with its reason, as one
 * expression: host->fail(call, ...), then `status`, so that a failed
 * check is
 *
 *     return plugin_answer(host, call, MUSTER_STATUS_UNAVAIL, "%s: %s", path, why);
 *
 * The format is checked as fail()'s, and formatted once, by the host. */
#ifndef MUSTER_PLUGIN_COMMON_ANSWER_H
#define MUSTER_PLUGIN_COMMON_ANSWER_H

#include <muster/plugin.h>

#define plugin_answer(host, call, status, ...) ((host)->fail((call), __VA_ARGS__), (status))

#endif
