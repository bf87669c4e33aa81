/* muster watch --metrics-port: what the watch did, as a Prometheus page
 * served from the watch loop (lib/httpd.c). */
#ifndef MUSTER_CLI_WATCH_METRICS_H
#define MUSTER_CLI_WATCH_METRICS_H

#include <muster/muster.h>

struct watch_metrics;
struct httpd;

/* The page on host:port (host NULL: 127.0.0.1), with a series per entry
 * of ctx whose plugin watches; 0, or the exit status (the error said). */
int watch_metrics_open(struct watch_metrics **out, const muster_ctx *ctx, const char *host,
                       int port);
/* The observer for muster_watch_options (data: the metrics). */
void watch_metrics_observe(const muster_watch_event *ev, void *data);
/* A change was printed. */
void watch_metrics_changed(struct watch_metrics *m);
struct httpd *watch_metrics_httpd(struct watch_metrics *m);
void watch_metrics_free(struct watch_metrics *m);

#endif
