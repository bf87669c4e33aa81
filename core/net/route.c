/* Route lookups over rtnetlink: route_open(), route_get(). */
#include <config.h>

#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "route.h"

/* The kernel answers a route request before the send returns; the wait
 * only guards against a kernel that does not. */
#define ROUTE_ANSWER_TIMEOUT_MS 1000

int route_open(void)
{
	struct timeval tv = { ROUTE_ANSWER_TIMEOUT_MS / 1000, (ROUTE_ANSWER_TIMEOUT_MS % 1000) * 1000 };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static void fail(struct route_answer *out, int error, const char *what)
{
	out->error = error;
	snprintf(out->reason, sizeof(out->reason), "%s%s%s", what ? what : "", what ? ": " : "",
	         strerror(error));
}

static void add_attr(struct nlmsghdr *nh, unsigned short type, const void *data, size_t len)
{
	struct rtattr *rta = (struct rtattr *)((char *)nh + NLMSG_ALIGN(nh->nlmsg_len));
	rta->rta_type = type;
	rta->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	nh->nlmsg_len = NLMSG_ALIGN(nh->nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

static int send_request(int fd, unsigned seq, const struct sockaddr *dst)
{
	struct {
		struct nlmsghdr nh;
		struct rtmsg rt;
		char attrs[64];
	} req;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
	req.nh.nlmsg_type = RTM_GETROUTE;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = seq;
	req.rt.rtm_family = (unsigned char)dst->sa_family;
	if (dst->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)dst;
		req.rt.rtm_dst_len = 32;
		add_attr(&req.nh, RTA_DST, &in->sin_addr, sizeof(in->sin_addr));
	} else {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)dst;
		int oif = (int)in6->sin6_scope_id;
		req.rt.rtm_dst_len = 128;
		add_attr(&req.nh, RTA_DST, &in6->sin6_addr, sizeof(in6->sin6_addr));
		/* A link-local address names its link: the route is that one. */
		if (oif != 0)
			add_attr(&req.nh, RTA_OIF, &oif, sizeof(oif));
	}
	return sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0
	               ? -1 : 0;
}

static void set_source(struct route_answer *out, int family, const void *addr)
{
	if (family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&out->source;
		in->sin_family = AF_INET;
		memcpy(&in->sin_addr, addr, sizeof(in->sin_addr));
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&out->source;
		in6->sin6_family = AF_INET6;
		memcpy(&in6->sin6_addr, addr, sizeof(in6->sin6_addr));
	}
}

/* A route the kernel found: its type, interface and preferred source. */
static void read_route(const struct nlmsghdr *nh, struct route_answer *out)
{
	const struct rtmsg *rt = NLMSG_DATA(nh);
	int len = (int)RTM_PAYLOAD(nh), oif = 0, have_source = 0;

	switch (rt->rtm_type) {
	case RTN_UNICAST:
		break;
	case RTN_LOCAL:
		out->local = 1;
		break;
	case RTN_UNREACHABLE:
		fail(out, EHOSTUNREACH, NULL);
		return;
	case RTN_PROHIBIT:
		fail(out, EACCES, "the routing policy forbids it");
		return;
	default: /* blackhole, broadcast, multicast: no one peer behind it */
		fail(out, ENETUNREACH, NULL);
		return;
	}
	for (const struct rtattr *a = RTM_RTA(rt); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == RTA_OIF && RTA_PAYLOAD(a) >= sizeof(int)) {
			memcpy(&oif, RTA_DATA(a), sizeof(oif));
		} else if (a->rta_type == RTA_PREFSRC &&
		           RTA_PAYLOAD(a) == (rt->rtm_family == AF_INET ? 4u : 16u)) {
			set_source(out, rt->rtm_family, RTA_DATA(a));
			have_source = 1;
		}
	}
	if (oif <= 0 || if_indextoname((unsigned)oif, out->ifname) == NULL) {
		fail(out, ENODEV, "the route names no interface");
		return;
	}
	if (!have_source) {
		out->error = EADDRNOTAVAIL;
		snprintf(out->reason, sizeof(out->reason), "%s has no address to send from",
		         out->ifname);
	}
}

void route_get(int fd, unsigned seq, const struct sockaddr *dst, struct route_answer *out)
{
	union {
		struct nlmsghdr nh;
		char buf[8192];
	} ans;

	memset(out, 0, sizeof(*out));
	if (dst->sa_family != AF_INET && dst->sa_family != AF_INET6) {
		fail(out, EAFNOSUPPORT, NULL);
		return;
	}
	if (send_request(fd, seq, dst) < 0) {
		fail(out, errno, "route lookup");
		return;
	}
	for (;;) {
		ssize_t n = recv(fd, ans.buf, sizeof(ans.buf), 0);
		if (n < 0) {
			fail(out, errno == EAGAIN ? ETIMEDOUT : errno, "route lookup");
			return;
		}
		for (struct nlmsghdr *nh = &ans.nh; NLMSG_OK(nh, (size_t)n); nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_seq != seq)
				continue; /* the answer to an earlier, abandoned question */
			if (nh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nh);
				fail(out, e->error < 0 ? -e->error : EPROTO, NULL);
			} else if (nh->nlmsg_type == RTM_NEWROUTE) {
				read_route(nh, out);
			} else {
				continue;
			}
			return;
		}
	}
}
