#include <config.h>

#include "natural.h"

#include <stddef.h>
#include <string.h>

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int natural_cmp(const char *a, const char *b)
{
	const char *pa = a, *pb = b;

	/* Names to sort share long prefixes (tensorflow-worker-): skip the
	 * bytes both have, then step back to the start of the digit run the
	 * first difference is in, where the numeric comparison must begin. */
	while (*pa && *pa == *pb) {
		pa++;
		pb++;
	}
	while (pa > a && is_digit(pa[-1])) {
		pa--;
		pb--;
	}
	while (*pa && *pb) {
		if (is_digit(*pa) && is_digit(*pb)) {
			const char *ea, *eb;
			size_t la, lb;
			int c;

			/* Leading zeros do not make a number larger. */
			while (*pa == '0' && is_digit(pa[1]))
				pa++;
			while (*pb == '0' && is_digit(pb[1]))
				pb++;
			for (ea = pa; is_digit(*ea); ea++)
				;
			for (eb = pb; is_digit(*eb); eb++)
				;
			la = (size_t)(ea - pa);
			lb = (size_t)(eb - pb);
			if (la != lb)
				return la < lb ? -1 : 1;
			if ((c = memcmp(pa, pb, la)) != 0)
				return c < 0 ? -1 : 1;
			pa = ea;
			pb = eb;
			continue;
		}
		if (*pa != *pb)
			return (unsigned char)*pa < (unsigned char)*pb ? -1 : 1;
		pa++;
		pb++;
	}
	if (*pa || *pb)
		return *pa ? 1 : -1;
	/* Equal as numbers ("w-01" and "w-1"): plain order decides. */
	return strcmp(a, b) < 0 ? -1 : strcmp(a, b) > 0;
}
