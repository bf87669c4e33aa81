#include <config.h>

#include "jsonw.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void jsonw_init(struct jsonw *w)
{
	memset(w, 0, sizeof(*w));
}

static void append(struct jsonw *w, const char *s, size_t n)
{
	if (w->failed)
		return;
	if (w->cap - w->len <= n) {
		size_t ncap = w->cap ? w->cap : 256;
		while (ncap - w->len <= n) {
			if (ncap > SIZE_MAX / 2) {
				w->failed = 1;
				return;
			}
			ncap *= 2;
		}
		char *p = realloc(w->buf, ncap);
		if (!p) {
			w->failed = 1;
			return;
		}
		w->buf = p;
		w->cap = ncap;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = '\0';
}

void jsonw_raw(struct jsonw *w, const char *s)
{
	append(w, s, strlen(s));
}

void jsonw_char(struct jsonw *w, char c)
{
	/* Most calls: room left, no failure; a 9 MB cluster makes millions. */
	if (w->cap - w->len > 1) {
		w->buf[w->len++] = c;
		w->buf[w->len] = '\0';
		return;
	}
	append(w, &c, 1);
}

void jsonw_long(struct jsonw *w, long v)
{
	char num[24];
	int n = snprintf(num, sizeof(num), "%ld", v);
	append(w, num, (size_t)n);
}

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when invalid. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n;
	unsigned min;
	if (c < 0x80)
		return 1;
	if ((c & 0xE0) == 0xC0) {
		n = 2;
		min = 0x80;
	} else if ((c & 0xF0) == 0xE0) {
		n = 3;
		min = 0x800;
	} else if ((c & 0xF8) == 0xF0) {
		n = 4;
		min = 0x10000;
	} else {
		return 0;
	}
	unsigned cp = c & (0x7F >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
}

void jsonw_string(struct jsonw *w, const char *str)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	jsonw_char(w, '"');
	while (*s) {
		/* Copy the longest run that needs no escaping in one go. */
		const unsigned char *run = s;
		while (*s >= 0x20 && *s < 0x80 && *s != '"' && *s != '\\' && *s != '<' &&
		       *s != '>' && *s != '&')
			s++;
		append(w, (const char *)run, (size_t)(s - run));
		if (!*s)
			break;
		char esc[7] = {'\\', 'u', '0', '0', 0, 0, 0};
		switch (*s) {
		case '"': jsonw_raw(w, "\\\""); s++; continue;
		case '\\': jsonw_raw(w, "\\\\"); s++; continue;
		case '\n': jsonw_raw(w, "\\n"); s++; continue;
		case '\r': jsonw_raw(w, "\\r"); s++; continue;
		case '\t': jsonw_raw(w, "\\t"); s++; continue;
		default: break;
		}
		if (*s < 0x80) { /* other control characters and <, >, & */
			esc[4] = hex[*s >> 4];
			esc[5] = hex[*s & 0xF];
			append(w, esc, 6);
			s++;
			continue;
		}
		size_t n = utf8_len(s);
		if (n == 0) {
			jsonw_raw(w, "\\ufffd");
			s++;
		} else if (n == 3 && s[0] == 0xE2 && s[1] == 0x80 && (s[2] == 0xA8 || s[2] == 0xA9)) {
			jsonw_raw(w, s[2] == 0xA8 ? "\\u2028" : "\\u2029");
			s += 3;
		} else {
			append(w, (const char *)s, n);
			s += n;
		}
	}
	jsonw_char(w, '"');
}

char *jsonw_finish(struct jsonw *w)
{
	if (w->failed) {
		free(w->buf);
		w->buf = NULL;
		return NULL;
	}
	if (!w->buf)
		append(w, "", 0);
	char *out = w->buf;
	if (w->failed) {
		free(out);
		return NULL;
	}
	w->buf = NULL;
	return out;
}
