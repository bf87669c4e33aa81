/* The network path's probe, as the launch uses it (netpath.c). */
#ifndef MUSTER_CORE_NET_NETPATH_H
#define MUSTER_CORE_NET_NETPATH_H

#include <stddef.h>

#include <muster/muster.h>

/* muster_netpath_probe() whose interface is chosen among hosts[from..n)
 * alone: the hosts before `from` are looked up and routed with the others
 * (at the same time, within the same timeout) but decide nothing. */
int netpath_probe_peers(muster_netpath **out, const char *const *hosts, size_t n, size_t from,
                        long timeout_ms, muster_error *err);

#endif
