/*
 * kubernetes: small helpers — base64, strings, paths, token files.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "k8s.h"

static int b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int k8s_base64_decode(const char *in, char **out, size_t *outlen)
{
	size_t n = strlen(in), o = 0;
	unsigned acc = 0;
	int bits = 0, pad = 0;
	char *buf = malloc(n / 4 * 3 + 4);

	if (buf == NULL)
		return -1;
	for (; *in; in++) {
		unsigned char c = (unsigned char)*in;
		int v;

		if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
			continue;
		if (c == '=') {
			pad++;
			continue;
		}
		v = b64_value(c);
		if (v < 0 || pad > 0)
			goto bad;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf[o++] = (char)((acc >> bits) & 0xff);
		}
	}
	if (pad > 2 || bits >= 6)
		goto bad;
	buf[o] = '\0';
	*out = buf;
	*outlen = o;
	return 0;
bad:
	free(buf);
	return -1;
}

char *k8s_path_relative(const char *base, const char *path)
{
	const char *slash;

	if (path[0] == '/' || (slash = strrchr(base, '/')) == NULL)
		return strdup(path);
	return plugin_asprintf("%.*s/%s", (int)(slash - base), base, path);
}

muster_status k8s_nomem(struct k8s_run *run)
{
	run->host->fail(run->call, "out of memory");
	return MUSTER_STATUS_UNAVAIL;
}

char *k8s_read_token(struct k8s_run *run, const char *path, const char *what)
{
	char *data, ebuf[128];
	size_t len, i;

	if (plugin_read_file(path, K8S_MAX_FILE, &data, &len) != 0) {
		run->host->fail(run->call, "cannot read %s %s: %s", what, path,
		                plugin_strerror(errno, ebuf, sizeof(ebuf)));
		return NULL;
	}
	while (len > 0 && (data[len - 1] == '\n' || data[len - 1] == '\r' ||
	                   data[len - 1] == ' ' || data[len - 1] == '\t'))
		data[--len] = '\0';
	/* The token goes into an HTTP header: no control bytes (and never
	 * quote it in the message). */
	for (i = 0; i < len; i++)
		if ((unsigned char)data[i] < 0x20 || data[i] == 0x7f) {
			free(data);
			run->host->fail(run->call, "%s %s holds a control character; expected one token",
			                what, path);
			return NULL;
		}
	if (len == 0) {
		free(data);
		run->host->fail(run->call, "%s %s is empty", what, path);
		return NULL;
	}
	return data;
}
