#!/bin/sh
# muster(3) is the C API's manual: every function <muster/muster.h> exports
# has its prototype there, with the header's words, and every prototype it
# shows is one the header declares.  The manual pages render without a
# groff warning.
set -u
. "${MUSTER_TEST_SRCDIR:?run me from make check}/tests/lib/tap.sh"
header=$MUSTER_TEST_SRCDIR/include/muster/muster.h
page=$MUSTER_TEST_SRCDIR/docs/muster.3

# The header's functions, one per line: the name after MUSTER_API.
sed -n 's/^MUSTER_API [^(]*[ *]\(muster_[a-z_]*\)(.*/\1/p' "$header" | sort -u >"$tmp/header"
# The page's prototypes: the first name of each .BI or .B line that calls.
sed -n 's/^\.BI\{0,1\} "[^(]*[ *]\(muster_[a-z_]*\)(.*/\1/p' "$page" | sort -u >"$tmp/page"

n=$(wc -l <"$tmp/header")
if [ "$n" -lt 40 ]; then
	fail "the header's functions are found" "only $n: $(tr '\n' ' ' <"$tmp/header")"
else
	pass "the header's functions are found ($n)"
fi
missing=$(comm -23 "$tmp/header" "$tmp/page")
check_eq "muster(3) shows every function of muster.h" "$missing" ""
extra=$(comm -13 "$tmp/header" "$tmp/page")
check_eq "muster(3) shows no function muster.h lacks" "$extra" ""
# Each prototype as the header spells it (types and names), blanks aside.
tr -s ' \t\n' '  ' <"$header" | sed 's/MUSTER_API /\n/g' | sed -n 's/^\([^;]*;\).*/\1/p' |
	tr -d ' ' | sort >"$tmp/header-protos"
sed -n 's/^\.BI\{0,1\} \(".*\)$/\1/p' "$page" | grep 'muster_[a-z_]*(' |
	sed 's/" \([^"]*\) "/\1/g; s/^"//; s/" \([^" ]*\)$/\1/; s/"//g' | tr -d ' ' |
	sort >"$tmp/page-protos"
wrong=$(comm -13 "$tmp/header-protos" "$tmp/page-protos")
check_eq "muster(3)'s prototypes are the header's" "$wrong" ""

if command -v groff >/dev/null 2>&1; then
	for p in muster.1 muster.conf.5 muster.3; do
		out=$(groff -ww -z -man -t "$MUSTER_TEST_SRCDIR/docs/$p" 2>&1)
		check_eq "$p renders without a groff warning" "$out" ""
	done
else
	skip "the pages render without a groff warning" "no groff"
fi
finish
