#include <config.h>

#include "media.h"

#include <string.h>

void media_type(const char *value, size_t len, char *out, size_t size)
{
	size_t o = 0;

	while (len > 0 && (*value == ' ' || *value == '\t'))
		value++, len--;
	for (; len > 0 && o + 1 < size; value++, len--) {
		char c = *value;

		if (c == ';' || c == ' ' || c == '\t' || c == '\r' || c == '\n')
			break;
		out[o++] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c > 0x20 && c < 0x7f ? c : '?';
	}
	out[o] = '\0';
}

int media_not_json(const char *type)
{
	return strncmp(type, "text/", 5) == 0;
}
