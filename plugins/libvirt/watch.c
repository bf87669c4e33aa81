/*
 * libvirt: watch().  Its own read-only connection, opened after the event
 * loop is registered (evloop.c), gets domain events: every lifecycle event
 * (defined, undefined, started, suspended, resumed, stopped, shut down,
 * crashed, PM-suspended), a change of the muster metadata element, and a
 * device added or removed; each reports a change, and the core resolves
 * again.
 *
 * libvirt has no event for an address (a DHCP lease, the guest agent).
 * A domain that starts or resumes, whose muster metadata or devices
 * change, or that runs without an address when the watch connects, is
 * awaited: re-read alone (its XML, then its address as resolve() reads it)
 * within 250 ms, then at doubling intervals up to 4 s, until it has an
 * address (a change), stops, goes, is no member, or 5 minutes pass.  At
 * most VIRT_WATCH_MAX_AWAITED domains are awaited at once.  Any other
 * address change (a lease renewed to another address, a reboot) is seen
 * by the entry's address_poll_ms: that often the watch reports a change
 * anyway, so the chain runs again.
 *
 * The connection's close callback (a daemon restarted, keepalive lost:
 * keepalive is asked for on remote connections) reconnects with a doubling
 * backoff from 250 ms to 10 s, re-registers, re-reads the running domains,
 * and reports a change: anything may have happened meanwhile.  A watch
 * that cannot start (no event loop, no connection, no lifecycle events)
 * logs why and returns -1: the core polls the entry.
 *
 * Threads: callbacks run on the event loop's thread and only record (under
 * the lock) and report; everything else runs on the watch's thread, which
 * waits on the stop fd and its own wake fd.  Before the connection goes,
 * its callbacks are deregistered and the loop passes a barrier, so no
 * callback can run on freed state.
 */
#include <config.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <libvirt/virterror.h>

#include "lib/clock.h"
#include "plugins/common/watchhost.h"
#include "virt.h"

#define VIRT_WATCH_MAX_AWAITED 1024
#define AWAIT_FIRST_MS 250
#define AWAIT_MAX_STEP_MS 4000
#define AWAIT_GIVE_UP_MS (5L * 60 * 1000)
#define RECONNECT_FIRST_MS 250
#define RECONNECT_MAX_MS 10000
#define KEEPALIVE_INTERVAL_S 5
#define KEEPALIVE_COUNT 3

/* The domain events a watch registers; the first is required. */
enum { EV_LIFECYCLE, EV_METADATA, EV_DEVICE_ADDED, EV_DEVICE_REMOVED, EV_COUNT };

/* A domain awaited for its address. */
struct awaited {
	unsigned char uuid[VIR_UUID_BUFLEN];
	long long since_ms;
};

struct virt_watch {
	struct virt_run run;      /* the watch's connection and options, its call the host's
	                             call for the watch */
	const muster_host *host;
	muster_watcher *w;
	int wake_fd;              /* callbacks → the watch's thread */
	int ev_ids[EV_COUNT];     /* -1: not registered */
	int close_registered;
	char why[512];            /* the last fail() */
	char last_logged[512];    /* the last connection failure logged */
	/* Written by callbacks, under lock. */
	pthread_mutex_t lock;
	int closed;               /* the connection closed; reason */
	int close_reason;
	int fresh;                /* a domain was added to the awaited */
	int overflow;             /* one could not be: the set was full */
	struct awaited awaited[VIRT_WATCH_MAX_AWAITED];
	size_t nawaited;
	/* The watch's thread only. */
	long long check_at;
	struct backoff check;     /* the awaited domains' next recheck */
	long long poll_at;
	long long reconnect_at;
	struct backoff reconnect;
};

/* fail() on the watch's call: kept for the log, never a call's. */
static void watch_failed(void *data, const char *reason)
{
	struct virt_watch *ws = data;

	snprintf(ws->why, sizeof(ws->why), "%s", reason);
}

static size_t awaited_count(struct virt_watch *ws)
{
	size_t n;

	pthread_mutex_lock(&ws->lock);
	n = ws->nawaited;
	pthread_mutex_unlock(&ws->lock);
	return n;
}

static void wake(struct virt_watch *ws)
{
	uint64_t one = 1;

	/* A full counter already wakes the thread. */
	if (write(ws->wake_fd, &one, sizeof(one)) < 0) {
	}
}

/* Awaits the domain's address (callbacks and the watch's thread). */
static void await_address(struct virt_watch *ws, virDomainPtr dom)
{
	unsigned char uuid[VIR_UUID_BUFLEN];
	size_t i;

	if (virDomainGetUUID(dom, uuid) < 0)
		return;
	pthread_mutex_lock(&ws->lock);
	for (i = 0; i < ws->nawaited; i++)
		if (memcmp(ws->awaited[i].uuid, uuid, VIR_UUID_BUFLEN) == 0)
			break;
	if (i == ws->nawaited && ws->nawaited == VIRT_WATCH_MAX_AWAITED) {
		ws->overflow = 1;
	} else {
		if (i == ws->nawaited)
			memcpy(ws->awaited[ws->nawaited++].uuid, uuid, VIR_UUID_BUFLEN);
		ws->awaited[i].since_ms = clock_now_ms();
		ws->fresh = 1;
	}
	pthread_mutex_unlock(&ws->lock);
	wake(ws);
}

static int on_lifecycle(virConnectPtr conn, virDomainPtr dom, int event, int detail, void *opaque)
{
	struct virt_watch *ws = opaque;

	(void)conn;
	(void)detail;
	if (event == VIR_DOMAIN_EVENT_STARTED || event == VIR_DOMAIN_EVENT_RESUMED)
		await_address(ws, dom);
	ws->host->watch_changed(ws->w);
	return 0;
}

static void on_metadata(virConnectPtr conn, virDomainPtr dom, int type, const char *nsuri,
                        void *opaque)
{
	struct virt_watch *ws = opaque;

	(void)conn;
	/* Titles, descriptions and other namespaces decide nothing here. */
	if (type != VIR_DOMAIN_METADATA_ELEMENT || nsuri == NULL || strcmp(nsuri, VIRT_NS) != 0)
		return;
	await_address(ws, dom);
	ws->host->watch_changed(ws->w);
}

/* Interfaces and hostdevs: addresses and accelerators. */
static void on_device(virConnectPtr conn, virDomainPtr dom, const char *alias, void *opaque)
{
	struct virt_watch *ws = opaque;

	(void)conn;
	(void)alias;
	await_address(ws, dom);
	ws->host->watch_changed(ws->w);
}

static void on_close(virConnectPtr conn, int reason, void *opaque)
{
	struct virt_watch *ws = opaque;

	(void)conn;
	pthread_mutex_lock(&ws->lock);
	ws->closed = 1;
	ws->close_reason = reason;
	pthread_mutex_unlock(&ws->lock);
	wake(ws);
}

static const char *close_reason_name(int reason)
{
	switch (reason) {
	case VIR_CONNECT_CLOSE_REASON_EOF: return "the daemon closed it";
	case VIR_CONNECT_CLOSE_REASON_KEEPALIVE: return "keepalive timed out";
	case VIR_CONNECT_CLOSE_REASON_CLIENT: return "closed by this process";
	default: return "an I/O error";
	}
}

/* Whether the domain still waits for an address: running, a member,
 * and no address resolve() would take.  Its name goes into `name`. */
static int still_awaited(struct virt_watch *ws, const unsigned char *uuid, char *name_out,
                         size_t size)
{
	const struct virt_conf *conf = ws->run.conf;
	struct virt_domain d;
	const char *name;
	char *xml = NULL;
	int waiting = 0;

	memset(&d, 0, sizeof(d));
	if ((d.dom = virDomainLookupByUUID(ws->run.conn, uuid)) == NULL)
		return 0; /* gone: its event was a change */
	if (virDomainIsActive(d.dom) == 1 && (name = virDomainGetName(d.dom)) != NULL &&
	    (d.name = strdup(name)) != NULL && (xml = virDomainGetXMLDesc(d.dom, 0)) != NULL &&
	    virt_domain_parse(&ws->run, &d, xml) == MUSTER_STATUS_SUCCESS &&
	    virt_member_job(conf, &d) >= 0) {
		snprintf(name_out, size, "%s", d.name);
		waiting = virt_address(&ws->run, &d, d.meta_port > 0 ? d.meta_port : conf->port) !=
		          MUSTER_STATUS_SUCCESS;
		if (!waiting) {
			ws->host->log(conf->pc, MUSTER_LOG_DEBUG, "watch: domain %s has an address",
			              d.name);
			ws->host->watch_changed(ws->w);
		}
	}
	free(xml);
	virt_domain_clear(&d);
	return waiting;
}

/* One pass over the awaited domains (callbacks may append meanwhile). */
static void check_awaited(struct virt_watch *ws)
{
	long long now = clock_now_ms();
	size_t i = 0;

	while (!watch_stopping(ws->host, ws->w, 0)) { /* between libvirt calls too */
		unsigned char uuid[VIR_UUID_BUFLEN];
		char name[256];
		long long since;
		int keep;

		pthread_mutex_lock(&ws->lock);
		if (i >= ws->nawaited) {
			pthread_mutex_unlock(&ws->lock);
			break;
		}
		memcpy(uuid, ws->awaited[i].uuid, VIR_UUID_BUFLEN);
		since = ws->awaited[i].since_ms;
		pthread_mutex_unlock(&ws->lock);

		keep = still_awaited(ws, uuid, name, sizeof(name));
		if (keep && now - since >= AWAIT_GIVE_UP_MS) {
			ws->host->log(ws->run.conf->pc, MUSTER_LOG_INFO,
			              "watch: domain %s still has no address after %ld s; a later one "
			              "is seen within address_poll_ms",
			              name, AWAIT_GIVE_UP_MS / 1000);
			keep = 0;
		}
		pthread_mutex_lock(&ws->lock);
		if (keep)
			i++;
		else
			ws->awaited[i] = ws->awaited[--ws->nawaited];
		pthread_mutex_unlock(&ws->lock);
	}
}

/* Every running domain is awaited: the pass drops those with an address. */
static void await_running(struct virt_watch *ws)
{
	virDomainPtr *list = NULL;
	int n, i;

	if ((n = virConnectListAllDomains(ws->run.conn, &list, VIR_CONNECT_LIST_DOMAINS_RUNNING)) < 0)
		return; /* the connection broke: its close callback says so */
	for (i = 0; i < n; i++) {
		await_address(ws, list[i]);
		virDomainFree(list[i]);
	}
	free(list);
	check_awaited(ws);
}

static void disconnect(struct virt_watch *ws)
{
	int e;

	if (ws->run.conn == NULL)
		return;
	for (e = 0; e < EV_COUNT; e++)
		if (ws->ev_ids[e] >= 0) {
			virConnectDomainEventDeregisterAny(ws->run.conn, ws->ev_ids[e]);
			ws->ev_ids[e] = -1;
		}
	if (ws->close_registered)
		virConnectUnregisterCloseCallback(ws->run.conn, on_close);
	ws->close_registered = 0;
	/* No callback of ours is running once the loop passes this. */
	virt_evloop_barrier();
	virt_disconnect(&ws->run);
	pthread_mutex_lock(&ws->lock);
	ws->closed = 0;
	pthread_mutex_unlock(&ws->lock);
}

/* Opens the connection and registers: 0, or -1 with ws->why. */
static int connect_and_register(struct virt_watch *ws)
{
	static const struct {
		int id;
		virConnectDomainEventGenericCallback cb;
	} events[EV_COUNT] = {
		{ VIR_DOMAIN_EVENT_ID_LIFECYCLE, VIR_DOMAIN_EVENT_CALLBACK(on_lifecycle) },
		{ VIR_DOMAIN_EVENT_ID_METADATA_CHANGE, VIR_DOMAIN_EVENT_CALLBACK(on_metadata) },
		{ VIR_DOMAIN_EVENT_ID_DEVICE_ADDED, VIR_DOMAIN_EVENT_CALLBACK(on_device) },
		{ VIR_DOMAIN_EVENT_ID_DEVICE_REMOVED, VIR_DOMAIN_EVENT_CALLBACK(on_device) },
	};
	const struct virt_conf *conf = ws->run.conf;
	int e;

	ws->run.agent_denied = 0;
	if (virt_connect(&ws->run) != MUSTER_STATUS_SUCCESS)
		return -1;
	if (virConnectRegisterCloseCallback(ws->run.conn, on_close, ws, NULL) == 0)
		ws->close_registered = 1;
	/* A remote daemon that vanishes is noticed; other drivers refuse. */
	if (virConnectSetKeepAlive(ws->run.conn, KEEPALIVE_INTERVAL_S, KEEPALIVE_COUNT) < 0)
		virResetLastError();
	for (e = 0; e < EV_COUNT; e++) {
		ws->ev_ids[e] = virConnectDomainEventRegisterAny(ws->run.conn, NULL, events[e].id,
		                                                 events[e].cb, ws, NULL);
		if (ws->ev_ids[e] >= 0)
			continue;
		if (e == EV_LIFECYCLE) {
			snprintf(ws->why, sizeof(ws->why), "%s: no domain events: %s", conf->uri,
			         virt_last_error());
			disconnect(ws);
			return -1;
		}
		/* An older daemon: what it cannot report waits for address_poll_ms. */
		ws->host->log(conf->pc, MUSTER_LOG_DEBUG, "watch: %s: event %d not offered: %s",
		              conf->uri, events[e].id, virt_last_error());
	}
	await_running(ws);
	return 0;
}

/* Milliseconds until the first deadline, -1: none. */
static int next_timeout(struct virt_watch *ws, long long now)
{
	long long at = -1;

	if (ws->run.conn == NULL)
		at = ws->reconnect_at;
	else if (awaited_count(ws) > 0)
		at = ws->check_at;
	if (ws->run.conf->address_poll_ms > 0 && (at < 0 || ws->poll_at < at))
		at = ws->poll_at;
	if (at < 0)
		return -1;
	return at <= now ? 0 : at - now > INT32_MAX ? INT32_MAX : (int)(at - now);
}

static void try_reconnect(struct virt_watch *ws, long long now)
{
	const struct virt_conf *conf = ws->run.conf;

	if (connect_and_register(ws) == 0) {
		ws->host->log(conf->pc, MUSTER_LOG_NOTICE, "watch: reconnected to %s", conf->uri);
		ws->last_logged[0] = '\0';
		ws->reconnect.next_ms = RECONNECT_FIRST_MS;
		ws->host->watch_changed(ws->w);
		return;
	}
	/* A daemon down for an hour is one line per distinct reason. */
	if (strcmp(ws->why, ws->last_logged) != 0) {
		ws->host->log(conf->pc, MUSTER_LOG_WARNING, "watch: %s; retrying", ws->why);
		snprintf(ws->last_logged, sizeof(ws->last_logged), "%s", ws->why);
	}
	ws->reconnect_at = now + backoff_step(&ws->reconnect);
}

/* The awaited domains' rechecks start over: the first wait (250 ms),
 * the next ones doubling up to 4 s. */
static long await_restart(struct virt_watch *ws)
{
	ws->check = (struct backoff){ AWAIT_FIRST_MS, AWAIT_MAX_STEP_MS };
	return backoff_step(&ws->check);
}

/* Until the stop fd is readable: 0; -1 after a log when waiting fails. */
static int watch_loop(struct virt_watch *ws)
{
	const struct virt_conf *conf = ws->run.conf;
	struct pollfd p[2] = { { ws->host->watch_stop_fd(ws->w), POLLIN, 0 },
		               { ws->wake_fd, POLLIN, 0 } };

	ws->poll_at = clock_now_ms() + conf->address_poll_ms;
	for (;;) {
		long long now = clock_now_ms();
		int closed, reason, fresh, overflow;
		uint64_t v;

		p[0].revents = p[1].revents = 0; /* poll leaves them when interrupted */
		if (poll(p, 2, next_timeout(ws, now)) < 0 && errno != EINTR) {
			ws->host->log(conf->pc, MUSTER_LOG_WARNING, "watch: poll: %s", strerror(errno));
			return -1;
		}
		if (p[0].revents & POLLIN)
			return 0;
		if (p[1].revents & POLLIN && read(ws->wake_fd, &v, sizeof(v)) < 0) {
		}
		pthread_mutex_lock(&ws->lock);
		closed = ws->closed;
		reason = ws->close_reason;
		fresh = ws->fresh;
		overflow = ws->overflow;
		ws->fresh = ws->overflow = 0;
		pthread_mutex_unlock(&ws->lock);
		now = clock_now_ms();
		if (overflow)
			ws->host->log(conf->pc, MUSTER_LOG_INFO,
			              "watch: more than %d domains await an address; the others' are "
			              "seen within address_poll_ms",
			              VIRT_WATCH_MAX_AWAITED);
		if (closed && ws->run.conn != NULL) {
			ws->host->log(conf->pc, MUSTER_LOG_WARNING,
			              "watch: the connection to %s closed (%s); reconnecting", conf->uri,
			              close_reason_name(reason));
			disconnect(ws);
			ws->reconnect_at = now + backoff_step(&ws->reconnect);
		}
		if (ws->run.conn == NULL && now >= ws->reconnect_at)
			try_reconnect(ws, now);
		/* A new domain is read within 250 ms, however busy the events. */
		if (fresh) {
			long first = await_restart(ws);

			if (ws->check_at > now + first)
				ws->check_at = now + first;
		}
		if (ws->run.conn != NULL && now >= ws->check_at && awaited_count(ws) > 0) {
			check_awaited(ws);
			ws->check_at = now + backoff_step(&ws->check);
		}
		if (conf->address_poll_ms > 0 && now >= ws->poll_at) {
			ws->host->watch_changed(ws->w);
			ws->poll_at = now + conf->address_poll_ms;
		}
	}
}

int virt_watch(void *state, const muster_host *host, muster_plugin_ctx *pc, muster_watcher *w)
{
	const struct virt_conf *conf = state;
	struct virt_watch *ws;
	const char *why;
	int e, rc = -1;

	if (virt_evloop_acquire(&why) < 0) {
		host->log(pc, MUSTER_LOG_WARNING, "watch: %s", why);
		return -1;
	}
	if ((ws = calloc(1, sizeof(*ws))) == NULL) {
		host->log(pc, MUSTER_LOG_WARNING, "watch: out of memory");
		virt_evloop_release();
		return -1;
	}
	ws->host = host;
	ws->w = w;
	ws->run.host = host;
	ws->run.conf = conf;
	/* A watch has no deadline: a request may take as long as a domain
	 * is awaited. */
	if ((ws->run.call = watch_call_open(host, pc, AWAIT_GIVE_UP_MS, watch_failed, ws)) == NULL) {
		free(ws);
		virt_evloop_release();
		return -1;
	}
	for (e = 0; e < EV_COUNT; e++)
		ws->ev_ids[e] = -1;
	ws->reconnect.next_ms = RECONNECT_FIRST_MS;
	ws->reconnect.max_ms = RECONNECT_MAX_MS;
	pthread_mutex_init(&ws->lock, NULL);
	if ((ws->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
		host->log(pc, MUSTER_LOG_WARNING, "watch: eventfd: %s", strerror(errno));
	else if (connect_and_register(ws) < 0)
		host->log(pc, MUSTER_LOG_WARNING, "watch: cannot watch: %s", ws->why);
	else {
		ws->check_at = clock_now_ms() + await_restart(ws);
		host->watch_armed(w);
		rc = watch_loop(ws);
	}
	disconnect(ws);
	if (ws->wake_fd >= 0)
		close(ws->wake_fd);
	pthread_mutex_destroy(&ws->lock);
	host->watch_call_end(ws->run.call);
	free(ws);
	virt_evloop_release();
	return rc;
}
