#include <config.h>

#include "quote.h"

#include <stdio.h>
#include <string.h>

void quote_text(char *buf, size_t size, const char *s, size_t len)
{
	size_t o = 0, i;

	if (size < 8) {
		if (size > 0)
			buf[0] = '\0';
		return;
	}
	buf[o++] = '"';
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[8];
		size_t n;

		if (c == '"' || c == '\\')
			n = (size_t)snprintf(esc, sizeof(esc), "\\%c", c);
		else if (c == '\n')
			n = (size_t)snprintf(esc, sizeof(esc), "\\n");
		else if (c == '\t')
			n = (size_t)snprintf(esc, sizeof(esc), "\\t");
		else if (c < 0x20 || c >= 0x7f)
			n = (size_t)snprintf(esc, sizeof(esc), "\\x%02x", c);
		else
			n = (size_t)snprintf(esc, sizeof(esc), "%c", c);
		/* Keep room for: closing quote, "...", NUL. */
		if (o + n + 5 > size) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		memcpy(buf + o, esc, n);
		o += n;
	}
	buf[o++] = '"';
	buf[o] = '\0';
}
