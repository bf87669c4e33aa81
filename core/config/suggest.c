#include <config.h>

#include "suggest.h"

#include <string.h>

/* Optimal string alignment distance: edits, adjacent swaps counting one. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t d[SUGGEST_MAX_WORD + 1][SUGGEST_MAX_WORD + 1];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

/* One edit in a short word, two in a longer one: beyond that it is
 * another word, not a typo. */
static size_t near_enough(const char *word)
{
	return strlen(word) >= 6 ? 2 : 1;
}

const char *suggest_nearest(const char *word, const char *const *candidates, size_t n)
{
	const char *best = NULL;
	size_t best_d = 0;
	if (strlen(word) > SUGGEST_MAX_WORD)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (strlen(candidates[i]) > SUGGEST_MAX_WORD || strcmp(word, candidates[i]) == 0)
			continue;
		size_t d = distance(word, candidates[i]);
		if (d <= near_enough(word) && (!best || d < best_d)) {
			best = candidates[i];
			best_d = d;
		}
	}
	return best;
}
