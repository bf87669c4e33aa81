/* no_proxy lists (cli/noproxy.c): whether one covers a host. */
#ifndef MUSTER_CLI_NOPROXY_H
#define MUSTER_CLI_NOPROXY_H

/* 1 when an entry of `list` (comma-separated, blanks around entries
 * ignored) covers `host`: "*", the name itself (case aside), a domain it
 * is in (".example.com", "*.example.com" or "example.com"), or, for a
 * numeric host, the same address or a CIDR block holding it
 * ("10.0.0.0/8", "fd00::/64").  0 otherwise. */
int noproxy_covers(const char *list, const char *host);

#endif
