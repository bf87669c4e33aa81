/* Running the chain: NSS statuses and actions, merge as TensorFlow's
 * UnionClusterResolver. */
#ifndef MUSTER_CHAIN_H
#define MUSTER_CHAIN_H

#include "ctx.h"

int chain_resolve(struct muster_ctx *ctx, struct muster_result **out, muster_error *err);

/* The failed entries one resolve warned about, for a caller that resolves
 * again and again (a watch): an entry that failed with the same status at
 * the resolve before is not warned about again, whatever its reason says
 * (a late one's holds its time), so an entry down for an hour is one line. */
struct chain_warned {
	char *keys; /* each entry's prefix, status and file:line, followed by '\n'; NULL: none */
};
int chain_resolve_warned(struct muster_ctx *ctx, struct muster_result **out, muster_error *err,
                         struct chain_warned *warned);
void chain_warned_clear(struct chain_warned *warned);

/* chain_resolve() recording each entry it runs into `x` (explain.h). */
struct muster_explain;
int chain_resolve_explain(struct muster_ctx *ctx, struct muster_result **out, muster_error *err,
                          struct muster_explain *x);

#endif
