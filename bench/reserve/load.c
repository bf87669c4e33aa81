/*
 * Load for a reservation server: N TensorFlowOnSpark executors at once,
 * from one process (so that the clients' own start-up is not measured).
 * Each connects and, on that one connection, does what TFSparkNode.run
 * does: QINFO, REG (protocol 4, memo back-reference for ps nodes, as
 * CPython 3.8+ writes it), QUERY every POLL ms until True, QINFO; the final
 * list must hold N registrations.  Then, optionally, one STOP.
 *
 * usage: load PORT N POLL_MS [stop]
 * prints: "first_connect_ms last_done_ms span_ms requests" (monotonic ms).
 */
#include <config.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pickle.h"

enum step { S_QINFO1, S_REG, S_QUERY, S_WAIT, S_QINFO2, S_DONE };

struct client {
	int fd, id;
	enum step step;
	uint8_t out[512];
	size_t out_len, out_sent;
	uint8_t *in;
	size_t in_len, in_cap, need;
	double wake_at;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Protocol-4 bytes as CPython writes {'type': T}. */
static size_t simple_request(uint8_t *p, const char *type)
{
	size_t tl = strlen(type), n = 0, body = 1 + 1 + 2 + 4 + 1 + 2 + tl + 1 + 1 + 1;

	memcpy(p + 4, "\x80\x04\x95", 3);
	n = 7;
	for (int i = 0; i < 8; i++)
		p[n++] = (uint8_t)(i == 0 ? body : 0);
	p[n++] = 0x7d; p[n++] = 0x94;
	p[n++] = 0x8c; p[n++] = 4; memcpy(p + n, "type", 4); n += 4; p[n++] = 0x94;
	p[n++] = 0x8c; p[n++] = (uint8_t)tl; memcpy(p + n, type, tl); n += tl; p[n++] = 0x94;
	p[n++] = 0x73; p[n++] = 0x2e;
	n -= 4;
	p[0] = (uint8_t)(n >> 24); p[1] = (uint8_t)(n >> 16); p[2] = (uint8_t)(n >> 8); p[3] = (uint8_t)n;
	return n + 4;
}

/* A real-shaped REG: nine fields; executor 0 is the ps whose addr
 * tuple refers back to the memoized host string. */
static size_t reg_request(uint8_t *p, int id)
{
	static const uint8_t key[16] = { 0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
	                                  0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };
	const char *host = "127.0.0.1";
	size_t n = 4, hl = strlen(host), frame_at;
	int port = 20000 + id;
	unsigned memo = 0;

#define B(x) (p[n++] = (uint8_t)(x))
#define S(s) do { size_t l_ = strlen(s); B(0x8c); B(l_); memcpy(p + n, s, l_); n += l_; B(0x94); memo++; } while (0)
#define I2(v) do { B(0x4d); B((v) & 0xff); B(((v) >> 8) & 0xff); } while (0)
	B(0x80); B(0x04); B(0x95);
	frame_at = n;
	n += 8;
	B(0x7d); B(0x94); memo++; B(0x28);
	S("type"); S("REG"); S("data");
	B(0x7d); B(0x94); memo++; B(0x28);
	S("executor_id"); I2(id);
	S("host");
	unsigned host_memo = memo;
	S(host);
	S("job_name"); if (id == 0) { S("ps"); } else { S("worker"); }
	S("task_index"); I2(id == 0 ? 0 : id - 1);
	S("port"); I2(port);
	S("tb_pid"); B(0x4b); B(0);
	S("tb_port"); B(0x4b); B(0);
	S("addr");
	if (id == 0) {
		B(0x68); B(host_memo); I2(39999); B(0x86); B(0x94); memo++;
	} else {
		S("/tmp/pymp-bench/listener-x");
	}
	S("authkey"); B(0x43); B(16); memcpy(p + n, key, 16); n += 16; B(0x94);
	B(0x75); B(0x75); B(0x2e);
	(void)hl;
	{
		size_t body = n - frame_at - 8;
		for (int i = 0; i < 8; i++)
			p[frame_at + i] = (uint8_t)(i < 8 ? (body >> (8 * i)) & 0xff : 0);
	}
	n -= 4;
	p[0] = (uint8_t)(n >> 24); p[1] = (uint8_t)(n >> 16); p[2] = (uint8_t)(n >> 8); p[3] = (uint8_t)n;
	return n + 4;
#undef B
#undef S
#undef I2
}

static void queue(struct client *c)
{
	switch (c->step) {
	case S_QINFO1:
	case S_QINFO2:
		c->out_len = simple_request(c->out, "QINFO");
		break;
	case S_REG:
		c->out_len = reg_request(c->out, c->id);
		break;
	case S_QUERY:
		c->out_len = simple_request(c->out, "QUERY");
		break;
	default:
		c->out_len = 0;
	}
	c->out_sent = 0;
	c->in_len = 0;
	c->need = 4;
}

int main(int argc, char **argv)
{
	int port, n, poll_ms, stop, i, done = 0;
	struct client *cl;
	struct pollfd *pf;
	struct sockaddr_in sa;
	double first = 0, last = 0;
	long requests = 0;
	uint8_t *first_list = NULL;
	size_t first_len = 0;
	struct rlimit rl;

	if (argc < 4) {
		fprintf(stderr, "usage: load PORT N POLL_MS [stop]\n");
		return 2;
	}
	port = atoi(argv[1]);
	n = atoi(argv[2]);
	poll_ms = atoi(argv[3]);
	stop = argc > 4;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)n + 64) {
		rl.rlim_cur = rl.rlim_max < (rlim_t)n + 64 ? rl.rlim_max : (rlim_t)n + 64;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	cl = calloc((size_t)n, sizeof *cl);
	pf = calloc((size_t)n, sizeof *pf);
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	first = now_ms();
	for (i = 0; i < n; i++) {
		int one = 1;

		cl[i].id = i;
		cl[i].fd = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(cl[i].fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		/* Blocking connect: the backlog absorbs them; then non-blocking. */
		if (connect(cl[i].fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
			perror("connect");
			return 1;
		}
		fcntl(cl[i].fd, F_SETFL, O_NONBLOCK);
		cl[i].step = S_QINFO1;
		queue(&cl[i]);
	}
	while (done < n) {
		double t = now_ms();

		for (i = 0; i < n; i++) {
			struct client *c = &cl[i];

			pf[i].fd = c->fd;
			pf[i].events = 0;
			if (c->step == S_WAIT && t >= c->wake_at) {
				c->step = S_QUERY;
				queue(c);
			}
			if (c->step == S_DONE || c->step == S_WAIT)
				pf[i].fd = -1;
			else
				pf[i].events = c->out_sent < c->out_len ? POLLOUT : POLLIN;
		}
		if (poll(pf, (nfds_t)n, poll_ms > 0 ? poll_ms : 1) < 0 && errno != EINTR)
			return 1;
		for (i = 0; i < n; i++) {
			struct client *c = &cl[i];
			ssize_t r;

			if (pf[i].fd < 0 || pf[i].revents == 0)
				continue;
			if (c->out_sent < c->out_len) {
				r = send(c->fd, c->out + c->out_sent, c->out_len - c->out_sent, MSG_NOSIGNAL);
				if (r > 0)
					c->out_sent += (size_t)r;
				if (c->out_sent == c->out_len)
					requests++;
				continue;
			}
			if (c->in_cap < c->need) {
				c->in_cap = c->need;
				c->in = realloc(c->in, c->in_cap);
			}
			r = recv(c->fd, c->in + c->in_len, c->need - c->in_len, 0);
			if (r <= 0) {
				fprintf(stderr, "client %d: server closed (step %d)\n", i, c->step);
				return 1;
			}
			c->in_len += (size_t)r;
			if (c->in_len < c->need)
				continue;
			if (c->need == 4) {
				c->need = 4 + ((size_t)c->in[0] << 24 | (size_t)c->in[1] << 16 |
				               (size_t)c->in[2] << 8 | c->in[3]);
				continue;
			}
			/* A complete reply. */
			switch (c->step) {
			case S_QINFO1:
				c->step = S_REG;
				break;
			case S_REG:
				c->step = S_QUERY;
				break;
			case S_QUERY:
				/* True is 88 after PROTO at protocols 2-5. */
				if (c->in[4 + 2] == 0x88) {
					c->step = S_QINFO2;
				} else {
					c->step = S_WAIT;
					c->wake_at = now_ms() + poll_ms;
				}
				break;
			case S_QINFO2: {
				/* Decode the first complete list; the others must be the
				 * same bytes (decoding 1,024 lists of 250 KB would make
				 * this process the bottleneck). */
				if (first_list == NULL) {
					pv *list = pv_decode(c->in + 4, c->need - 4, NULL, NULL);

					if (list == NULL || (int)pv_len(list) != n) {
						fprintf(stderr, "client %d: final list of %zu, not %d\n", i,
						        list ? pv_len(list) : 0, n);
						return 1;
					}
					pv_free(list);
					first_list = c->in;
					first_len = c->need;
					c->in = NULL;
					c->in_cap = 0;
				} else if (c->need != first_len || memcmp(c->in, first_list, first_len) != 0) {
					fprintf(stderr, "client %d: final list differs from the first\n", i);
					return 1;
				}
				c->step = S_DONE;
				last = now_ms();
				done++;
				close(c->fd);
				c->fd = -1;
				break;
			}
			default:
				break;
			}
			if (c->step != S_DONE && c->step != S_WAIT)
				queue(c);
		}
	}
	if (stop) {
		uint8_t buf[64];
		size_t len = simple_request(buf, "STOP");
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0) {
			ssize_t w = send(fd, buf, len, MSG_NOSIGNAL);
			(void)w;
			(void)!recv(fd, buf, sizeof buf, 0);
		}
		close(fd);
	}
	printf("%.1f %.1f %.1f %ld\n", first, last, last - first, requests);
	for (i = 0; i < n; i++)
		free(cl[i].in);
	free(first_list);
	free(cl);
	free(pf);
	return 0;
}
