/*
 * Fuzz target: the Compute API's answers, as the gce backend reads them —
 * instances.list pages (names, the chosen address, guestAccelerators) or
 * instanceGroups.listInstances pages (instance URLs, zones; repeats
 * dropped), each page's nextPageToken (a repeated token is refused).  The
 * input is cut at FUZZ_SEP into the pages of one listing.  The first byte
 * picks the listing and the entry's options (address, interface).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "fuzz.h"
#include "gce.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gce_conf conf;
	struct gce_run run;
	struct fuzz_call fc;
	struct gce_instvec insts = { 0 };
	struct gce_membervec members = { 0 };
	struct pbuf b;
	muster_status st = MUSTER_STATUS_SUCCESS;
	const uint8_t *part;
	char *token = NULL;
	size_t len, page = 0;
	int groups;

	if (size < 1)
		return 0;
	memset(&conf, 0, sizeof(conf));
	groups = data[0] & 1;
	conf.address = (data[0] & 2) ? GCE_ADDR_EXTERNAL : GCE_ADDR_INTERNAL;
	conf.interface = (data[0] >> 2) & 1;
	data++, size--;
	if (fuzz_call_begin(&fc, NULL) != 0)
		return 0;
	conf.pc = &fc.pc;
	memset(&run, 0, sizeof(run));
	run.host = &host_services;
	run.call = &fc.call;
	run.conf = &conf;
	run.project = "fuzz";
	run.zone = "us-central1-a";
	pbuf_init(&b, GCE_MAX_PAGE);
	while (st == MUSTER_STATUS_SUCCESS && (part = fuzz_part(&data, &size, &len)) != NULL) {
		pbuf_reset(&b);
		if (pbuf_append(&b, part, len) != 0)
			break;
		page++;
		st = groups ? gce_members_page(&run, "listInstances", page, &b, run.zone, page % 2,
		                               &members, &token)
		            : gce_instances_page(&run, "instances.list", page, &b, &insts, &token);
		if (token == NULL)
			break;
	}
	if (st == MUSTER_STATUS_SUCCESS && groups)
		st = gce_members_unique(&run, &members);
	free(token);
	pbuf_free(&b);
	gce_instvec_free(&insts);
	gce_membervec_free(&members);
	fuzz_call_end(&fc, st);
	return 0;
}
