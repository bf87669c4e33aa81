/*
 * libvirt: the connection — read-only, one per resolve — and libvirt's
 * errors, which must reach our error message and never the host's stderr.
 *
 * libvirt dispatches an error to the connection's handler when the failing
 * call has a connection (virConnSetErrorFunc, set on every connection we
 * open), and otherwise to the process-wide handler, whose default prints
 * "libvirt: error : ..." on stderr.  Opening a connection is the one call
 * without a connection, and libvirt has no per-call or per-thread handler
 * for it; so only around virConnectOpenReadOnly() a silent process-wide
 * handler is installed, under a lock, and libvirt's default is put back
 * right after (libvirt offers no way to read a handler the host may have
 * installed itself: such a host should install it again after a resolve,
 * or — simpler — keep libvirt's default, which this restores).
 *
 * libvirt's drivers parse XML with libxml2, which reports some problems
 * (the test driver's "I/O warning : failed to load external entity") on
 * its own generic channel, straight to stderr.  libxml2 keeps those
 * handlers per thread, so they are silenced around the open in this thread
 * only and restored exactly (the plugin links the same libxml2, which it
 * reads the domains' XML with).
 *
 * The message itself is read from libvirt's per-thread last error, which
 * libvirt sets whatever handler runs.
 */
#include <config.h>

#include <errno.h>
#include <pthread.h>

#include <libvirt/virterror.h>
#include <libxml/globals.h>
#include <libxml/xmlerror.h>

#include "virt.h"

static void virt_quiet(void *data, virErrorPtr err)
{
	(void)data;
	(void)err;
}

static void xml_quiet_generic(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

static void xml_quiet_structured(void *ctx, xmlErrorPtr error)
{
	(void)ctx;
	(void)error;
}

/* libxml2's per-thread error handlers, saved while silenced. */
struct xml_quiet {
	xmlGenericErrorFunc generic;
	void *generic_ctx;
	xmlStructuredErrorFunc structured;
	void *structured_ctx;
};

static void xml_silence(struct xml_quiet *q)
{
	q->generic = xmlGenericError;
	q->generic_ctx = xmlGenericErrorContext;
	q->structured = xmlStructuredError;
	q->structured_ctx = xmlStructuredErrorContext;
	xmlSetGenericErrorFunc(NULL, xml_quiet_generic);
	xmlSetStructuredErrorFunc(NULL, xml_quiet_structured);
}

static void xml_restore(const struct xml_quiet *q)
{
	xmlSetGenericErrorFunc(q->generic_ctx, q->generic);
	xmlSetStructuredErrorFunc(q->structured_ctx, q->structured);
}

/* Serialises the process-wide handler swap around opening connections. */
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;

const char *virt_last_error(void)
{
	virErrorPtr e = virGetLastError();

	if (e == NULL || e->message == NULL)
		return "libvirt gave no reason";
	return e->message;
}

int virt_last_error_code(void)
{
	virErrorPtr e = virGetLastError();

	return e == NULL ? VIR_ERR_OK : e->code;
}

/* Was the failure "no daemon on this machine"? */
static int no_daemon(void)
{
	virErrorPtr e = virGetLastError();

	if (e == NULL)
		return 0;
	return (e->code == VIR_ERR_SYSTEM_ERROR || e->code == VIR_ERR_NO_CONNECT) &&
	       (e->int1 == ENOENT || e->int1 == ECONNREFUSED);
}

muster_status virt_connect(struct virt_run *run)
{
	const struct virt_conf *conf = run->conf;
	struct xml_quiet q;

	/* First: libvirt's per-thread error slot exists only after this; and
	 * libxml2's handlers are only to be touched once it is initialised. */
	if (virInitialize() < 0)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "libvirt cannot initialise");
	virResetLastError();
	virt_xml_init();
	xml_silence(&q);

	pthread_mutex_lock(&open_lock);
	virSetErrorFunc(NULL, virt_quiet);
	run->conn = virConnectOpenReadOnly(conf->uri);
	virSetErrorFunc(NULL, NULL);
	pthread_mutex_unlock(&open_lock);
	xml_restore(&q);
	run->calls++;

	if (run->conn == NULL) {
		if (!conf->uri_explicit && no_daemon())
			return plugin_answer(run->host, run->call, MUSTER_STATUS_NOTFOUND,
			                     "no libvirt daemon here (%s: %s)", conf->uri,
			                     virt_last_error());
		run->host->fail(run->call, "cannot connect to %s: %s", conf->uri,
		                virt_last_error());
		return MUSTER_STATUS_UNAVAIL;
	}
	virConnSetErrorFunc(run->conn, NULL, virt_quiet);
	return MUSTER_STATUS_SUCCESS;
}

void virt_disconnect(struct virt_run *run)
{
	if (run->conn != NULL) {
		virConnectClose(run->conn);
		run->conn = NULL;
	}
}
