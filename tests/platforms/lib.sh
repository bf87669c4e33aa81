# The platform tests' helpers: muster with the shipped chain
# (conf/muster.conf) in an environment of nothing but the variables a
# platform sets, so that every check also checks the chain's order and
# each entry's `detect` list.
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/lib/tap.sh"
require_plugin platforms
shipped=$MUSTER_TEST_SRCDIR/conf/muster.conf

# on [VAR=VALUE...] -- ARGS...: `muster -c conf/muster.conf ARGS` with only
# PATH, the plugin path, the sanitizers' options and the VARs; sets rc,
# out and err as run_muster does.  `on_host NAME ...` runs it with the
# host name NAME (a UTS namespace of its own), as a pod's is its name.
on() {
	first=1
	for a in "$@"; do
		shift
		if [ "$a" = -- ] && [ "$first" = 1 ]; then
			set -- "$@" "$MUSTER_BIN" -c "${conf:-$shipped}"
			first=0
		else
			set -- "$@" "$a"
		fi
	done
	if [ -n "$uts$etc" ]; then
		set -- unshare ${uts:+-u} ${etc:+-m} sh -c '
			[ -z "$0" ] || hostname "$0" || exit 70
			[ -z "$1" ] || mount -t overlay overlay \
				-o "lowerdir=/etc,upperdir=$1/up,workdir=$1/work" /etc || exit 70
			shift
			exec env "$@"' "$uts" "$etc" "$@"
	fi
	rc=0
	env -i PATH="$PATH" MUSTER_PLUGIN_PATH="$MUSTER_PLUGIN_PATH" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" \
		"$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	status=$rc
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
	no_sanitizer_report "muster on $*"
}

# Whether a UTS namespace can be had here (root, unshare).
can_set_hostname() {
	unshare -u true 2>/dev/null
}
on_host() {
	uts=$1
	shift
	on "$@"
	uts=
}
uts=

# etc_file PATH [LINE...]: a file the platform mounts under /etc (PATH
# relative to it), of these lines (none: stdin); `on` then runs in a mount
# namespace whose /etc has it (an overlay: the machine's /etc is
# untouched).  can_overlay_etc: whether that can be had here.
etc=
etc_file() {
	etc=$tmp/etc
	mkdir -p "$etc/up/$(dirname "$1")" "$etc/work"
	f=$etc/up/$1
	shift
	if [ $# -gt 0 ]; then printf '%s\n' "$@" >"$f"; else cat >"$f"; fi
}
can_overlay_etc() {
	mkdir -p "$tmp/probe/up" "$tmp/probe/work"
	unshare -m sh -c "mount -t overlay overlay \
		-o lowerdir=/etc,upperdir=$tmp/probe/up,workdir=$tmp/probe/work /etc" 2>/dev/null
}

# expect_env WHAT NAME=VALUE...: the last `muster env` printed each
# "export NAME='VALUE'".
expect_env() {
	what=$1
	shift
	for kv in "$@"; do
		if ! grep -qxF "export ${kv%%=*}='${kv#*=}'" "$tmp/out"; then
			fail "$what: no export ${kv%%=*}='${kv#*=}'" "status $rc"
			return
		fi
	done
	pass "$what"
}
