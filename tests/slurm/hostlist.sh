#!/bin/sh
# Our host-list expansion against Slurm's own, `scontrol show hostnames`,
# on well-formed lists (same names, same order, duplicates kept), and the
# malformed ones both refuse.  Lists scontrol answers with garbage ("n[1-"
# gives "n]") are refused by us and covered in env.sh.  Without scontrol,
# only our expected answers are checked.
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/slurm/lib.sh"

expand="$MUSTER_TEST_BUILDDIR/tests/slurm/expand"
have_scontrol=
if command -v scontrol >/dev/null 2>&1; then
	# scontrol wants a configuration to exist, not a controller.
	printf 'ClusterName=t\nSlurmctldHost=localhost\nNodeName=n1\nPartitionName=p Nodes=n1\n' \
		>"$tmp/slurm.conf"
	SLURM_CONF="$tmp/slurm.conf"
	export SLURM_CONF
	scontrol show hostnames n1 >/dev/null 2>&1 && have_scontrol=yes
fi
[ -n "$have_scontrol" ] || skip "scontrol show hostnames" "scontrol is not usable here: our own expectations only"

# same LIST WANT: our names, and scontrol's when present, are WANT.
same() {
	rc=0
	out=$("$expand" "$1" 2>"$tmp/err" | tr '\n' ' ') || rc=$?
	err=$(cat "$tmp/err")
	expect "expand '$1'" 0 "$2"
	if [ -n "$have_scontrol" ]; then
		theirs=$(scontrol show hostnames "$1" 2>&1 | tr '\n' ' ')
		check_eq "scontrol show hostnames '$1'" "$theirs" "$2"
	fi
}

# refused LIST: we refuse it, and so does scontrol.
refused() {
	rc=0
	"$expand" "$1" >/dev/null 2>"$tmp/err" || rc=$?
	err=$(cat "$tmp/err")
	expect_err "refuse '$1'" 2 "expand: "
	if [ -n "$have_scontrol" ]; then
		theirs=$(scontrol show hostnames "$1" 2>&1)
		case "$theirs" in
		*"Invalid hostlist"*) pass "scontrol refuses '$1' too" ;;
		*) fail "scontrol accepts '$1': $theirs" ;;
		esac
	fi
}

same 'n[1-3]' 'n1 n2 n3 '
same 'node[001-003,7],gpu[1-2]' 'node001 node002 node003 node7 gpu1 gpu2 '
same 'n[8-10]' 'n8 n9 n10 '
same 'n[08-10]' 'n08 n09 n10 '
same 'n[098-101]' 'n098 n099 n100 n101 '
same 'n[1-010]' 'n1 n2 n3 n4 n5 n6 n7 n8 n9 n10 '
same 'n[00-1]' 'n00 n01 '
same 'n[1-2]x[3-4]' 'n1x3 n1x4 n2x3 n2x4 '
same 'n[1-2]x[3-4]y[5-6]' 'n1x3y5 n1x3y6 n2x3y5 n2x3y6 n1x4y5 n1x4y6 n2x4y5 n2x4y6 '
same 'n[1-2][3-4]' 'n13 n14 n23 n24 '
same 'n[1-3]-[5-6]' 'n1-5 n1-6 n2-5 n2-6 n3-5 n3-6 '
same 'a,b[01-02]c[3-4]' 'a b01c3 b01c4 b02c3 b02c4 '
same 'n[1-2],n[2-3]' 'n1 n2 n2 n3 '
same 'n[1-2,2]' 'n1 n2 n2 '
same '[1-2]' '1 2 '
same 'a.b[1-2]' 'a.b1 a.b2 '
same 'a,,b' 'a b '
same ',a' 'a '
same 'a,' 'a '
same 'a b' 'a b '
same 'n[000001-000003]' 'n000001 n000002 n000003 '
same '' ''
refused 'n[3-1]'
refused 'n[05-3]'
refused 'n[1-2-3]'
refused 'n[a-b]'
refused 'n[]'
refused 'n[1,,2]'
refused 'n[1-2,]'
refused 'n[1-2]a'
refused 'r[1-2]n[01-02]s'
refused 'n[1-3]:1'
refused 'n[1-99999999]'
refused 'x[0-65536]'

# The 65,536-name limit is Slurm's range limit, ours for a whole list.
rc=0
"$expand" 'x[0-65535]' >"$tmp/big" 2>"$tmp/err" || rc=$?
check_eq "x[0-65535] expands" "$rc $(wc -l <"$tmp/big")" "0 65536"
rc=0
"$expand" 'x[0-65535],y' >/dev/null 2>"$tmp/err" || rc=$?
err=$(cat "$tmp/err")
expect_err "65,537 names" 2 "more than 65536 hosts"
rc=0
"$expand" 'x[0-40000]y[0-40000]' >/dev/null 2>"$tmp/err" || rc=$?
err=$(cat "$tmp/err")
expect_err "a product past the limit is refused before it is made" 2 "more than 65536 hosts"

# Tasks per node.
rc=0
out=$("$expand" -t '2(x3),1' | tr '\n' ' ') || rc=$?
expect "2(x3),1" 0 "2 2 2 1 "
out=$("$expand" -t '2(x0),1' | tr '\n' ' ') || rc=$?
expect "2(x0) is nothing" 0 "1 "
finish
