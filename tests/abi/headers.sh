#!/bin/sh
# shellcheck disable=SC2086  # compiler and flag lists are split on purpose
# Each public header compiles on its own, twice in one unit (include
# guards), as strict C99 and as C++: a host or plugin may include any one of
# them first, from any C or C++ dialect we promise.
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

finish
