/*
 * The fuzz targets without libFuzzer: every file of the target's seed
 * corpus fed once to LLVMFuzzerTestOneInput, so that `make check` replays
 * the corpus under the suite's sanitizers.  Arguments name files or
 * directories; none: $MUSTER_TEST_SRCDIR/tests/fuzz/corpus/NAME, NAME
 * being the program's name less its "fuzz_" prefix.  Prints TAP: one
 * result per input replayed.
 */
#include <config.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static long replayed;

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	size_t size = 0, cap = 0, n;

	if (f == NULL) {
		perror(path);
		return -1;
	}
	do {
		if (size == cap) {
			uint8_t *p = realloc(data, cap = cap ? cap * 2 : 4096);

			if (p == NULL) {
				fclose(f);
				free(data);
				return -1;
			}
			data = p;
		}
		n = fread(data + size, 1, cap - size, f);
		size += n;
	} while (n > 0);
	fclose(f);
	/* The path first: it names the input if the call below crashes. */
	fprintf(stderr, "replay: %s (%zu bytes)\n", path, size);
	/* Exactly `size` bytes, as libFuzzer gives them: ASan sees overreads. */
	uint8_t *exact = malloc(size ? size : 1);
	if (exact == NULL) {
		free(data);
		return -1;
	}
	if (size > 0)
		memcpy(exact, data, size);
	free(data);
	LLVMFuzzerTestOneInput(exact, size);
	free(exact);
	printf("ok %ld - %s (%zu bytes)\n", ++replayed, path, size);
	fflush(stdout);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The directory's files, in byte order; the number replayed or -1. */
static long replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, i;
	long done = 0;

	if (d == NULL) {
		perror(dir);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		char **p;

		if (e->d_name[0] == '.')
			continue;
		if ((p = realloc(names, (n + 1) * sizeof(*names))) == NULL ||
		    (p[n] = malloc(strlen(dir) + strlen(e->d_name) + 2)) == NULL) {
			names = p ? p : names;
			done = -1;
			break;
		}
		names = p;
		sprintf(names[n++], "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (names != NULL)
		qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n; i++) {
		if (done >= 0 && replay_file(names[i]) == 0)
			done++;
		else
			done = -1;
		free(names[i]);
	}
	free(names);
	return done;
}

static long replay_path(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		perror(path);
		return -1;
	}
	if (S_ISDIR(st.st_mode))
		return replay_dir(path);
	return replay_file(path) == 0 ? 1 : -1;
}

int main(int argc, char **argv)
{
	long total = 0, n;
	int i;

	if (argc > 1) {
		for (i = 1; i < argc; i++) {
			if ((n = replay_path(argv[i])) < 0)
				return 1;
			total += n;
		}
	} else {
		const char *src = getenv("MUSTER_TEST_SRCDIR"), *name = strrchr(argv[0], '/');
		char dir[4096];

		name = name ? name + 1 : argv[0];
		if (strncmp(name, "lt-", 3) == 0)
			name += 3;
		if (strncmp(name, "fuzz_", 5) == 0)
			name += 5;
		snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s", src ? src : ".", name);
		if ((n = replay_dir(dir)) <= 0) {
			fprintf(stderr, "replay: no corpus in %s\n", dir);
			return 1;
		}
		total = n;
	}
	printf("1..%ld\n", total);
	return 0;
}
