#!/bin/sh
# shellcheck disable=SC2086  # symbol lists are printed on one line on purpose
# What the shared objects export.
#  - libmuster: only muster_* symbols (the version script's job), apart
#    from its version node (MUSTER_1.0, an absolute symbol);
#  - every plugin built in the tree: exactly muster_plugin_entry_v1;
#  - and the checker works: it must reject tests/abi/extra_export.so and
#    name the symbol it should not export.
set -u
. "${MUSTER_TEST_SRCDIR:?run me from make check}/tests/lib/tap.sh"
b=$MUSTER_TEST_BUILDDIR
checker="$MUSTER_TEST_SRCDIR/tests/abi/check-exports.sh"
nm_cmd=${NM:-nm}

lib="$b/core/.libs/libmuster.so"
if [ ! -f "$lib" ]; then
	bail_out "$lib not built"
fi
if ! syms=$($nm_cmd -D --defined-only "$lib"); then
	bail_out "nm $lib"
fi
# Names without their version (nm prints muster_resolve@@MUSTER_1.0).
names=$(printf '%s\n' "$syms" | awk 'NF >= 3 && $2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u)
bad=$(printf '%s\n' "$names" | grep -v -e '^muster_' -e '^$')
if [ -n "$bad" ]; then
	fail "$lib exports symbols outside muster_*:" "$bad"
else
	pass "$lib exports only muster_* symbols ($(printf '%s\n' "$names" | wc -l))"
fi
# ... and exactly the functions muster.h and reserve.h declare: nothing
# internal leaks out under the prefix, nothing public is hidden by the
# version script, and the list is the same whatever configure found
# (without the reservation server, reserve.h's calls fail with a reason).
headers="$MUSTER_TEST_SRCDIR/include/muster/muster.h $MUSTER_TEST_SRCDIR/include/muster/reserve.h"
declared=$(sed -n 's/^MUSTER_API .*[ *]\(muster_[a-z0-9_]*\)(.*/\1/p' $headers | sort -u)
undeclared=$(printf '%s\n' "$names" | grep -v -x -F -e "$declared" | grep -v '^$')
missing=$(printf '%s\n' "$declared" | grep -v -x -F -e "$names" | grep -v '^$')
if [ -z "$declared" ] || [ -n "$undeclared$missing" ]; then
	fail "$lib exports the functions its headers declare" "declared in $headers: $declared" \
		"exported, not declared: $undeclared" "declared, not exported: $missing"
else
	pass "$lib exports the $(printf '%s\n' "$declared" | wc -l) functions its headers declare"
fi

# Every plugin that is meant to be correct.
set --
for f in "$b"/plugins/*/.libs/*.so "$b"/tests/plugins/.libs/stub*.so \
	"$b"/tests/abi/.libs/good.so "$b"/tests/abi/.libs/newer_minor.so; do
	[ -f "$f" ] && set -- "$@" "$f"
done
if [ $# -eq 0 ]; then
	bail_out "no plugin found under $b"
fi
if out=$(sh "$checker" "$@"); then
	for f in "$@"; do pass "$f exports only muster_plugin_entry_v1"; done
else
	fail "the plugins export only muster_plugin_entry_v1" "$out"
fi

# The checker itself: extra_export.so exports extra_symbol_for_test.
extra="$b/tests/abi/.libs/extra_export.so"
out=$(sh "$checker" "$extra")
rc=$?
expected="$extra exports symbols other than muster_plugin_entry_v1: "
case $rc:$out in
1:"$expected"*extra_symbol_for_test*)
	pass "check-exports.sh flags $extra" ;;
*)
	fail "check-exports.sh on $extra: exit $rc, said: $out" ;;
esac

finish
