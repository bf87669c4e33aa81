/* The reservation server's Prometheus page (`muster reserve
 * --metrics-port`): lib/httpd.c serves it from the run's poll() loop, so a
 * scrape is answered between two rounds of executors' requests and costs
 * them nothing else; a hostile scraper meets httpd's bounds. */
#include <config.h>

#include <stdio.h>

#include "lib/error.h"
#include "lib/httpd.h"
#include "lib/prom.h"
#include "server.h"

static int render(FILE *f, void *data)
{
	const struct muster_reserve *s = data;
	const struct reserve_metrics *m = &s->metrics;

	prom_gauge(f, "muster_reserve_executors_expected",
	           "Executors the reservation waits for (--size).", (double)s->size);
	prom_gauge(f, "muster_reserve_executors_registered",
	           "Executors registered, one per executor id.", (double)s->reg.len);
	prom_gauge(f, "muster_reserve_executors_fetched",
	           "Executors that received the complete list.", (double)s->reg.fetched);
	prom_gauge(f, "muster_reserve_connections_open", "Executor connections open.",
	           (double)s->nlive);
	prom_counter(f, "muster_reserve_connections_accepted_total", "Connections accepted.",
	             m->accepted);
	prom_counter(f, "muster_reserve_connections_refused_total",
	             "Connections closed at once: their address was at its cap.", m->refused);
	prom_counter(f, "muster_reserve_connections_evicted_total",
	             "Connections closed to make room for a newcomer.", m->evicted);
	prom_counter(f, "muster_reserve_connections_idle_closed_total",
	             "Connections closed for completing no request within the idle timeout.",
	             m->idle_closed);
	prom_counter(f, "muster_reserve_requests_total", "Requests served.", m->requests);
	prom_counter(f, "muster_reserve_requests_refused_total", "Requests answered 'ERR'.",
	             m->requests_refused);
	prom_counter(f, "muster_reserve_received_bytes_total",
	             "Bytes received from executors.", m->bytes_in);
	prom_counter(f, "muster_reserve_sent_bytes_total", "Bytes sent to executors.",
	             m->bytes_out);
	return ferror(f) ? -1 : 0;
}

int metrics_open(struct muster_reserve *s, const muster_reserve_options *o, muster_error *err)
{
	char why[400];

	if (o->size < offsetof(muster_reserve_options, metrics_port) + sizeof(o->metrics_port) ||
	    o->metrics_port < 0)
		return 0;
	if (httpd_open(&s->metrics.httpd, o->metrics_host, o->metrics_port, "/metrics",
	               PROM_CONTENT_TYPE, render, s, why, sizeof why) != 0)
		return error_set(err, MUSTER_EUNAVAIL, "reserve: metrics: %s", why);
	log_msg(&s->log, MUSTER_LOG_NOTICE, "metrics on http://%s/metrics",
	        httpd_address(s->metrics.httpd));
	return 0;
}

void metrics_close(struct muster_reserve *s)
{
	httpd_free(s->metrics.httpd);
	s->metrics.httpd = NULL;
}

int muster_reserve_metrics_port(const muster_reserve *s)
{
	return s && s->metrics.httpd ? httpd_port(s->metrics.httpd) : -1;
}
