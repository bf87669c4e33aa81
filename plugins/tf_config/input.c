/*
 * tf_config: reading the JSON text, from the environment or a file.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/env.h"
#include "tf_config.h"

static muster_status too_big(const struct tfc_run *run, size_t len, int exact)
{
	run->host->fail(run->call, "%s is %s%zu bytes; the limit is %zu bytes (16 MiB)", run->src,
	                exact ? "" : "more than ", len, TFC_MAX_INPUT);
	return MUSTER_STATUS_UNAVAIL;
}

static muster_status empty(const struct tfc_run *run)
{
	run->host->fail(run->call, "%s is empty; expected JSON", run->src);
	return MUSTER_STATUS_UNAVAIL;
}

static muster_status no_memory(const struct tfc_run *run)
{
	run->host->fail(run->call, "%s: out of memory", run->src);
	return MUSTER_STATUS_UNAVAIL;
}

static muster_status sys_error(const struct tfc_run *run, const char *what, int err)
{
	char buf[128];
	const char *msg = strerror_r(err, buf, sizeof(buf)); /* GNU: returns the text */

	run->host->fail(run->call, "cannot %s %s: %s", what, run->src, msg);
	return MUSTER_STATUS_UNAVAIL;
}

static muster_status read_env(const struct tfc_run *run, char **text, size_t *len)
{
	const char *value = env_get(run->conf->variable);
	size_t n;

	/*
	 * Deliberate difference from TensorFlow, which reads an unset
	 * TF_CONFIG as "{}" (an empty cluster): unset means "not my kind of
	 * environment", so a chain falls back to its next backend.  Set but
	 * empty is a JSON error in TF as here.
	 */
	if (value == NULL)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_NOTFOUND,
		                     "%s is not set", run->src);
	n = strlen(value);
	if (n == 0)
		return empty(run);
	if (n > TFC_MAX_INPUT)
		return too_big(run, n, 1);
	/* A copy: the environment may change while we parse. */
	*text = malloc(n + 1);
	if (*text == NULL)
		return no_memory(run);
	memcpy(*text, value, n + 1);
	*len = n;
	return MUSTER_STATUS_SUCCESS;
}

static muster_status read_file(const struct tfc_run *run, char **text, size_t *len)
{
	struct stat st;
	char *buf = NULL;
	size_t cap, used = 0;
	muster_status rc;
	/* O_NONBLOCK: a FIFO at the path must not hang the call; only regular
	 * files are read, where the flag changes nothing. */
	int fd = open(run->src, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			/* Like an unset variable: not this kind of environment. */
			run->host->fail(run->call, "%s does not exist", run->src);
			return MUSTER_STATUS_NOTFOUND;
		}
		return sys_error(run, "open", errno);
	}
	if (fstat(fd, &st) != 0) {
		rc = sys_error(run, "stat", errno);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		run->host->fail(run->call, "%s is not a regular file", run->src);
		rc = MUSTER_STATUS_UNAVAIL;
		goto out;
	}
	if ((unsigned long long)st.st_size > TFC_MAX_INPUT) {
		rc = too_big(run, (size_t)st.st_size, 1);
		goto out;
	}
	/* The file may grow while we read: read up to one byte past the cap. */
	cap = (size_t)st.st_size + 1;
	buf = malloc(cap + 1);
	if (buf == NULL) {
		rc = no_memory(run);
		goto out;
	}
	for (;;) {
		ssize_t got;

		if (used == cap) {
			char *bigger;

			if (cap > TFC_MAX_INPUT) {
				rc = too_big(run, TFC_MAX_INPUT, 0);
				goto out;
			}
			cap = cap * 2 > TFC_MAX_INPUT + 1 ? TFC_MAX_INPUT + 1 : cap * 2;
			bigger = realloc(buf, cap + 1);
			if (bigger == NULL) {
				rc = no_memory(run);
				goto out;
			}
			buf = bigger;
		}
		got = read(fd, buf + used, cap - used);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			rc = sys_error(run, "read", errno);
			goto out;
		}
		if (got == 0)
			break;
		used += (size_t)got;
	}
	if (used > TFC_MAX_INPUT) {
		rc = too_big(run, TFC_MAX_INPUT, 0);
		goto out;
	}
	if (used == 0) {
		rc = empty(run);
		goto out;
	}
	buf[used] = '\0';
	*text = buf;
	*len = used;
	buf = NULL;
	rc = MUSTER_STATUS_SUCCESS;
out:
	free(buf);
	close(fd);
	return rc;
}

muster_status tfc_read_input(const struct tfc_run *run, char **text, size_t *len)
{
	*text = NULL;
	*len = 0;
	if (run->conf->file != NULL)
		return read_file(run, text, len);
	return read_env(run, text, len);
}
