#!/bin/sh
# shellcheck disable=SC2086  # compiler and flag lists are split on purpose
# Each public header compiles on its own, twice in one unit (include
# guards), as strict C99 and as C++: a host or plugin may include any one of
# them first, from any C or C++ dialect we promise.  So do a C++ plugin's
# descriptor and the option rows of <muster/plugin.h> (C and C++ agreeing).
#
# Environment (set by tests/abi/local.mk): MUSTER_TEST_CC, MUSTER_TEST_CXX,
# MUSTER_TEST_SRCDIR, MUSTER_TEST_BUILDDIR (include/muster/version.h is
# generated there).
set -u
. "${MUSTER_TEST_SRCDIR:?run me from make check}/tests/lib/tap.sh"
cc=${MUSTER_TEST_CC:-cc}
cxx=${MUSTER_TEST_CXX:-c++}

incs="-I$MUSTER_TEST_SRCDIR/include -I$MUSTER_TEST_BUILDDIR/include"
cwarn="-Wall -Wextra -Werror -Wstrict-prototypes -Wmissing-prototypes -Wundef -Wshadow"
cxxwarn="-Wall -Wextra -Werror -Wundef -Wshadow -Wold-style-cast"

# compiles DESCRIPTION COMPILER FLAGS...: compiles $tmp/unit
compiles() {
	what=$1; shift
	if ! out=$("$@" -fsyntax-only "$tmp/unit" 2>&1); then
		fail "$what" "$*" "$out"
	else
		pass "$what"
	fi
}

have_cxx=yes
if ! command -v "${cxx%% *}" >/dev/null 2>&1; then
	skip "the C++ checks" "no C++ compiler ($cxx)"
	have_cxx=no
fi

for h in muster/muster.h muster/plugin.h muster/reserve.h muster/version.h; do
	# (the typedef keeps version.h's unit from being empty for -pedantic)
	printf '#include <%s>\n#include <%s>\ntypedef int header_test_unit;\n' "$h" "$h" >"$tmp/unit"
	for std in c99 c11; do
		compiles "$h as $std -pedantic" $cc -x c -std=$std -pedantic $cwarn $incs
	done
	if [ $have_cxx = yes ]; then
		for std in c++11 c++17; do
			compiles "$h as $std -pedantic" $cxx -x c++ -std=$std -pedantic $cxxwarn $incs
		done
	fi
done

# A plugin written in C++ gets the same single exported entry symbol.
if [ $have_cxx = yes ]; then
	cat >"$tmp/unit" <<'CXX'
#include <muster/plugin.h>
namespace {
int op(const muster_host *, muster_plugin_ctx *, void **state) { *state = nullptr; return 0; }
muster_status res(void *, const muster_host *, muster_call *) { return MUSTER_STATUS_NOTFOUND; }
void cl(void *) {}
const muster_plugin desc = { MUSTER_PLUGIN_HEADER, 0, "cxx", "1", op, res, cl, nullptr };
}
MUSTER_PLUGIN_DEFINE(desc)
CXX
	# (without -Wold-style-cast: MUSTER_PLUGIN_HEADER expands to a C cast)
	compiles "a C++ plugin using MUSTER_PLUGIN_DEFINE" \
		$cxx -x c++ -std=c++11 -pedantic -Wall -Wextra -Werror $incs
fi

# The MUSTER_POPT_* rows, designated in C and positional in C++: one of
# each kind compiles without a warning (a missing field initializer
# included) in every dialect, and the C and C++ rows hold the same fields.
# ROWS(name) defines the table, the same text in both languages.
cat >"$tmp/rows.h" <<'H'
#include <muster/plugin.h>
struct conf { char *file, *layer; long port, size; int match, order; };
static const char *const orders[] = { "natural", "name", NULL };
#define ROWS(name)                                                              \
	const muster_popt name[] = {                                            \
		MUSTER_POPT_REQUIRED_STRING("file", struct conf, file, 0, "read"), \
		MUSTER_POPT_STRING("layer", struct conf, layer, MUSTER_POPT_EMPTY, "grpc"), \
		MUSTER_POPT_BOOL("match", struct conf, match, 1),                  \
		MUSTER_POPT_INT("port", struct conf, port, 1, 65535, 8470),         \
		MUSTER_POPT_REQUIRED_INT("size", struct conf, size, 1, 99, "how many"), \
		MUSTER_POPT_CHOICE("order", struct conf, order, orders, 1),         \
		MUSTER_POPT_CUSTOM("jobs", read_jobs),                              \
	}
H
cat >"$tmp/rows_c.c" <<'C'
#include <stdio.h>
#include <string.h>
#include "rows.h"
int read_jobs(const muster_popts *o, const muster_cfg *node, void *conf);
int read_jobs(const muster_popts *o, const muster_cfg *node, void *conf)
{
	(void)o, (void)node, (void)conf;
	return 0;
}
ROWS(c_rows);
#ifdef WITH_CXX
extern const muster_popt *cxx_rows(size_t *n);
static int same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}
/* Each unit has its own copy of `orders`: the same words. */
static int same_choices(const char *const *a, const char *const *b)
{
	size_t i;

	if (!a || !b)
		return a == b;
	for (i = 0; a[i] || b[i]; i++)
		if (!same(a[i], b[i]))
			return 0;
	return 1;
}
int main(void)
{
	size_t n, i;
	const muster_popt *x = cxx_rows(&n);
	int bad = n != MUSTER_POPT_COUNT(c_rows);

	for (i = 0; !bad && i < n; i++) {
		const muster_popt *c = &c_rows[i];
		if (!same(c->key, x[i].key) || c->type != x[i].type || c->flags != x[i].flags ||
		    c->offset != x[i].offset || c->size != x[i].size || c->min != x[i].min ||
		    c->max != x[i].max || c->def != x[i].def || !same(c->def_string, x[i].def_string) ||
		    !same(c->hint, x[i].hint) || !same_choices(c->choices, x[i].choices) ||
		    c->read != x[i].read) {
			printf("row %zu (%s) differs\n", i, c->key);
			bad = 1;
		}
	}
	return bad;
}
#endif
C
cat >"$tmp/rows_cxx.cc" <<'CXX'
#include "rows.h"
extern "C" {
int read_jobs(const muster_popts *o, const muster_cfg *node, void *conf);
const muster_popt *cxx_rows(size_t *n);
}
namespace {
ROWS(rows);
}
const muster_popt *cxx_rows(size_t *n)
{
	*n = MUSTER_POPT_COUNT(rows);
	return rows;
}
CXX

for std in c99 c11; do
	if out=$($cc -x c -std=$std -pedantic $cwarn $incs -I"$tmp" -c "$tmp/rows_c.c" \
		-o "$tmp/rows_c.o" 2>&1); then
		pass "MUSTER_POPT_* rows as $std -pedantic"
	else
		fail "MUSTER_POPT_* rows as $std -pedantic" "$out"
	fi
done
[ $have_cxx = yes ] || finish
for std in c++11 c++17 c++20; do
	if ! echo 'int x;' | $cxx -x c++ -std=$std -fsyntax-only - 2>/dev/null; then
		skip "MUSTER_POPT_* rows as $std" "$cxx has no -std=$std"
		continue
	fi
	if out=$($cxx -x c++ -std=$std -pedantic $cxxwarn $incs -I"$tmp" -c "$tmp/rows_cxx.cc" \
		-o "$tmp/rows_cxx_$std.o" 2>&1); then
		pass "MUSTER_POPT_* rows as $std -pedantic"
	else
		fail "MUSTER_POPT_* rows as $std -pedantic" "$out"
	fi
done
if out=$($cc -x c -std=c11 $incs -I"$tmp" -DWITH_CXX -c "$tmp/rows_c.c" -o "$tmp/main.o" 2>&1) &&
	out=$($cxx -x c++ -std=c++11 $incs -I"$tmp" -c "$tmp/rows_cxx.cc" -o "$tmp/cxx.o" 2>&1) &&
	out=$($cxx "$tmp/main.o" "$tmp/cxx.o" -o "$tmp/rows" 2>&1); then
	check "C's designated rows and C++'s positional rows hold the same fields" "$tmp/rows"
else
	fail "C's designated rows and C++'s positional rows hold the same fields" "$out"
fi
finish
