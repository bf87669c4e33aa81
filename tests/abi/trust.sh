#!/bin/sh
# The plugin trust check through the real `muster`:
#  1. a plugin below a directory that others can write (at any depth, not
#     just the parent) or that another user owns is refused, shown as
#     "failed: ..." by `muster plugins`, never called loaded and with no
#     ldd hint; below a sticky directory such as /tmp it loads;
#  2. without /proc/self/fd, plugins are refused with the reason.
# (That the file checked is the file loaded, test_loader shows.)
# Ownership cases need root (files are given to uid 65534).
set -u
. "${MUSTER_TEST_SRCDIR:?run me from make check}/tests/lib/tap.sh"
libs=$MUSTER_TEST_BUILDDIR/tests/abi/.libs
unset MUSTER_PLUGIN_PATH
chmod 0755 "$tmp"
root=false
[ "$(id -u)" = 0 ] && root=true

# conf DIR: the config loading `good` from DIR, then a static fallback.
conf() {
	cat >"$tmp/muster.conf" <<EOF
plugin_path = "$1";
chain = ( { plugin = "good"; },
          { plugin = "static"; config = { jobs = { worker = ["fallback.invalid:2"]; }; }; } );
EOF
}

# muster ARGS...: run it on $tmp/muster.conf into $rc, $out, $err.
muster() {
	rc=0
	out=$("$MUSTER_BIN" -c "$tmp/muster.conf" "$@" 2>"$tmp/err") || rc=$?
	err=$(cat "$tmp/err")
}

# plugin_at DIR: good.so in DIR (made 0755), mode 0644.
plugin_at() {
	mkdir -p "$1" && chmod 0755 "$1" && cp "$libs/good.so" "$1/good.so" && chmod 0644 "$1/good.so"
}

# refused NAME DIR WORD: good.so in DIR is refused, WORD in the reason.
refused() {
	conf "$2"
	muster plugins
	row=$(printf '%s\n' "$out" | grep '^good ')
	case "$row" in
	*"failed: "*"$3"*"refused as unsafe") pass "$1: muster plugins row" ;;
	*) fail "$1: muster plugins row: $row" "stdout: $out" ;;
	esac
	if printf '%s\n%s\n' "$out" "$err" | grep -e loaded -e ldd; then
		fail "$1: a line about the refused plugin says loaded or suggests ldd"
	else
		pass "$1: no line says loaded or suggests ldd"
	fi
	muster resolve
	expect "$1: resolve falls through" 0 '{"cluster":{"worker":["fallback.invalid:2"]}}'
	expect_err "$1: resolve warns" 0 "$2" "$3" "refused as unsafe"
}

# loads NAME DIR: good.so in DIR loads and answers.
loads() {
	conf "$2"
	muster resolve
	expect "$1" 0 '{"cluster":{"worker":["good.invalid:1"]}}'
}

# 1. Every ancestor counts.
plugin_at "$tmp/open/a/b"
chmod 0777 "$tmp/open"
refused "world-writable grandparent" "$tmp/open/a/b" "directory $tmp/open is writable by group or others and not sticky"
chmod 0775 "$tmp/open"
refused "group-writable grandparent" "$tmp/open/a/b" "directory $tmp/open is writable by group or others and not sticky"
chmod 1777 "$tmp/open"
loads "sticky world-writable grandparent" "$tmp/open/a/b"
chmod 0755 "$tmp/open"
plugin_at "$tmp/open/c"
chmod 0757 "$tmp/open/c"
refused "world-writable parent" "$tmp/open/c" "directory $tmp/open/c is writable by group or others"
plugin_at "$tmp/file"
chmod 0666 "$tmp/file/good.so"
refused "world-writable file" "$tmp/file" "$tmp/file/good.so is writable by group or others"
if $root; then
	plugin_at "$tmp/theirs/a/b"
	chown 65534 "$tmp/theirs"
	refused "grandparent of another user" "$tmp/theirs/a/b" "directory $tmp/theirs is owned by uid 65534"
	chmod 1777 "$tmp/theirs"
	refused "sticky grandparent of another user" "$tmp/theirs/a/b" "directory $tmp/theirs is owned by uid 65534"
	chown 0 "$tmp/theirs" && chmod 0755 "$tmp/theirs"
	chown 65534 "$tmp/theirs/a/b/good.so"
	refused "file of another user" "$tmp/theirs/a/b" "good.so is owned by uid 65534"
else
	skip "ownership cases" "not root"
fi

# A file that is no shared object at all is no missing library either.
mkdir "$tmp/junk" && chmod 0755 "$tmp/junk"
echo 'not an ELF file' >"$tmp/junk/good.so" && chmod 0644 "$tmp/junk/good.so"
conf "$tmp/junk"
muster resolve
expect_err "junk file: reason" 0 "cannot load $tmp/junk/good.so"
case "$err" in
*ldd* | */proc/self/fd*) fail "junk file: suggests ldd or names the descriptor" ;;
*) pass "junk file: suggests no ldd, names no descriptor" ;;
esac

# 2. No /proc/self/fd: refused, never loaded by path.
plugin_at "$tmp/noproc"
conf "$tmp/noproc"
if unshare -m sh -c 'mount -t tmpfs none "/proc/$$/fd"' 2>/dev/null; then
	rc=0
	# exec: muster is then the process whose fd directory tmpfs hides.
	out=$(unshare -m sh -c 'mount -t tmpfs none "/proc/$$/fd" && exec "$0" -c "$1" plugins' \
		"$MUSTER_BIN" "$tmp/muster.conf" 2>"$tmp/err") || rc=$?
	err=$(cat "$tmp/err")
	case "$(printf '%s\n' "$out" | grep '^good ')" in
	*"failed: "*"/proc/self/fd is unavailable (is /proc mounted?)"*refused) pass "no /proc: refused" ;;
	*) fail "no /proc: muster plugins: $out" ;;
	esac
else
	skip "no /proc: refused" "cannot unshare a mount namespace"
fi
finish
