/*
 * Fuzz target: PodList pages, as the kubernetes backend reads them — the
 * continue token guessed from a page's leading bytes (continue_hint.c),
 * the page checked and walked by simdjson (json_page.cc) into pod records
 * (podlist.c, pod.c), the page's verdict, then the job's task order
 * (order.c).  The input is cut at FUZZ_SEP into pages of one listing; a
 * page that starts as gzip does is decoded first, as http.c does.  The
 * first byte picks the entry's options (address, port name, order).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>

#include "call.h"
#include "fuzz.h"
#include "json_page.h"
#include "k8s.h"

static char *gpu_names[] = { (char *)"nvidia.com/gpu", (char *)"amd.com/gpu" };
static char *tpu_names[] = { (char *)"google.com/tpu" };
static struct k8s_accel_kind kinds[] = {
	{ (char *)"GPU", gpu_names, 2 },
	{ (char *)"TPU", tpu_names, 1 },
};
static char *selectors[] = { (char *)"job=worker" };
static struct k8s_job job = { (char *)"worker", selectors, 1 };

static void options(struct k8s_conf *conf, uint8_t pick)
{
	memset(conf, 0, sizeof(*conf));
	conf->jobs = &job;
	conf->njobs = 1;
	conf->kinds = kinds;
	conf->nkinds = 2;
	conf->nresources = 3;
	conf->port = 2222;
	conf->address = (enum k8s_address)(pick % 3);
	if (pick & 4)
		conf->port_name = (char *)"grpc";
	conf->order = (enum k8s_order)((pick >> 3) % 3);
	if (pick & 32)
		conf->index_label = (char *)"index";
}

/* One page into `pg`: decoded when gzip, else as it came. */
static int load(struct k8s_page *pg, struct libdeflate_decompressor *d, const uint8_t *p,
                size_t len, size_t n)
{
	struct k8s_sink sink;
	char what[64], why[160], *room;

	snprintf(what, sizeof(what), "page %zu", n);
	k8s_page_begin(pg, what, &sink);
	if (len >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return k8s_gunzip(d, (const char *)p, len, K8S_MAX_PAGE, &sink, why, sizeof(why)) ==
		               K8S_GUNZIP_OK
		           ? 0
		           : -1;
	if ((room = sink.room(sink.ctx, len)) == NULL)
		return -1;
	if (len > 0)
		memcpy(room, p, len);
	sink.wrote(sink.ctx, len);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct libdeflate_decompressor *d;
	struct k8s_conf conf;
	struct k8s_run run;
	struct fuzz_call fc;
	struct k8s_podvec pods;
	struct k8s_page *pg;
	struct json_parser *parser;
	muster_status st = MUSTER_STATUS_SUCCESS;
	const uint8_t *part;
	size_t len, n = 0;

	if (size < 1 || (d == NULL && (d = libdeflate_alloc_decompressor()) == NULL))
		return 0;
	options(&conf, data[0]);
	data++, size--;
	if (fuzz_call_begin(&fc, NULL) != 0)
		return 0;
	conf.pc = &fc.pc;
	memset(&run, 0, sizeof(run));
	run.host = &host_services;
	run.call = &fc.call;
	run.conf = &conf;
	memset(&pods, 0, sizeof(pods));
	pg = k8s_page_new(&conf);
	parser = json_parser_new();
	while (st == MUSTER_STATUS_SUCCESS && pg != NULL && parser != NULL &&
	       (part = fuzz_part(&data, &size, &len)) != NULL) {
		char *hint, *cont = NULL;

		if (load(pg, d, part, len, ++n) != 0)
			break;
		hint = k8s_page_continue_hint(pg);
		k8s_page_walk(pg, parser, 0, &pods);
		st = k8s_page_verdict(&run, pg, &cont);
		free(hint);
		free(cont);
	}
	if (st == MUSTER_STATUS_SUCCESS && n > 0)
		st = k8s_order(&run, &job, &pods);
	json_parser_free(parser);
	k8s_page_free(pg);
	k8s_podvec_free(&pods);
	fuzz_call_end(&fc, st);
	return 0;
}
