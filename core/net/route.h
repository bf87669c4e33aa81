/* The kernel's own answer to "which way to this address?": a route lookup
 * over rtnetlink (RTM_GETROUTE with RTA_DST), as `ip route get` asks it.
 * The kernel applies its policy rules and routing tables, so the answer
 * is the interface and source address a connection would really use —
 * not a guess from the host name, `hostname -I` or reverse DNS. */
#ifndef MUSTER_CORE_NET_ROUTE_H
#define MUSTER_CORE_NET_ROUTE_H

#include <net/if.h>
#include <sys/socket.h>

struct route_answer {
	int error;                      /* 0, or the errno the kernel answered
	                                   (ENETUNREACH, EHOSTUNREACH, ...) */
	char reason[96];                /* why not, when error != 0 */
	char ifname[IF_NAMESIZE];       /* the interface the packets leave by */
	struct sockaddr_storage source; /* the local address they leave from */
	int local;                      /* the address is this machine's own */
};

/* A route socket; -1 with errno set when none can be opened. */
int route_open(void);
/* Asks the kernel the way to `dst` (IPv4 or IPv6) on `fd`, filling *out;
 * `seq` numbers the request (one per question on a socket). */
void route_get(int fd, unsigned seq, const struct sockaddr *dst, struct route_answer *out);

#endif
