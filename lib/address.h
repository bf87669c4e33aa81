/* The one check of a task address, "HOST:PORT", before it leaves muster.
 * Syntactic only (no DNS lookup): HOST is a DNS name (labels of letters,
 * digits, '-' and '_', no label starting or ending with '-'), an IPv4
 * dotted quad, or an IPv6 address in brackets (a link-local one with its
 * zone, "[fe80::1%eth0]"); PORT is 1 to 65535.  libmuster checks every
 * task with it; the bundled plugins leave out a pod or instance whose
 * address fails, and read hosts from the environment with it (env.h). */
#ifndef MUSTER_LIB_ADDRESS_H
#define MUSTER_LIB_ADDRESS_H

#include <stddef.h>

/* 0 when `address` is valid; else -1 and, in `why` (unless `size` is 0),
 * a sentence naming the address (quoted, control bytes escaped) and what
 * is wrong with it. */
int address_check(const char *address, char *why, size_t size);

/* address_check() without its fast path: for an address that
 * address_plain_length() already gave 0 for. */
int address_check_careful(const char *address, char *why, size_t size);

/* A HOST alone, as a launcher's variable names the master: a DNS name, an
 * IPv4 address, or an IPv6 address with or without its brackets.  0, or
 * -1 with only the reason in `why` ("' ' cannot be in a host name"), for
 * the caller to say where the host came from. */
int address_check_host(const char *host, char *why, size_t size);

/* The common case in one pass: the length of `address` when it is a DNS
 * name (no IPv4, no brackets), one ':' and a port; 0 when it needs
 * address_check's careful path, which also words the error.  It runs for
 * every task of every result. */
size_t address_plain_length(const char *address);

/* "HOST:PORT" into `out` (room for hostlen + 7 bytes): the port in
 * decimal, without printf's cost per task. */
void address_join(char *out, const char *host, size_t hostlen, long port);

/* Whether the host of "HOST:PORT" (or a HOST alone) is a placeholder: a
 * name under unknown.invalid, in the top-level domain RFC 6761 reserves
 * for names that never resolve ("aws-batch-node-3.unknown.invalid"; a
 * name elsewhere under .invalid, which tests and examples use for hosts
 * that must not be reached, is no placeholder).  A backend names so a member whose address
 * its platform does not publish (AWS Batch's other nodes, a torchrun
 * worker's other agents), keeping the member's place in the cluster; what
 * needs every address (a cluster spec, TF_CONFIG, a hostfile) refuses
 * such a result, naming those members. */
int address_is_placeholder(const char *address);

#endif
