/* The fuzz targets' files: parsers that read a path get the input there. */
#include <config.h>

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz.h"

int fuzz_write_file(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	return close(fd);
}

static char tmpdir[256];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* The directory goes when the process ends (libFuzzer ends it with exit). */
static void remove_tmpdir(void)
{
	if (nftw(tmpdir, remove_one, 8, FTW_DEPTH | FTW_PHYS) != 0)
		fprintf(stderr, "fuzz: cannot remove %s\n", tmpdir);
}

const char *fuzz_tmpdir(void)
{
	if (tmpdir[0] != '\0')
		return tmpdir;
	const char *base = getenv("TMPDIR");

	snprintf(tmpdir, sizeof(tmpdir), "%s/muster-fuzz.XXXXXX", base && *base ? base : "/tmp");
	if (mkdtemp(tmpdir) == NULL) {
		tmpdir[0] = '\0';
		return NULL;
	}
	atexit(remove_tmpdir);
	return tmpdir;
}
