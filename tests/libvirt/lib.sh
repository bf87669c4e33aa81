# Shared by the libvirt plugin's shell tests: a scratch directory, configs
# whose only entry is the libvirt plugin, runs of `muster`, and checks.
# The plugin talks to libvirt's own test driver (test:///PATH.xml): node XML
# from fixtures/ or written by the test into the scratch directory.
# Sourced by tests/libvirt/*.sh; needs MUSTER_BIN, MUSTER_TEST_SRCDIR.
set -u

here="$MUSTER_TEST_SRCDIR/tests/libvirt"
fixtures="$here/fixtures"
. "$MUSTER_TEST_SRCDIR/tests/lib/tap.sh"
require_plugin libvirt

# Tests never read the caller's libvirt settings.
unset LIBVIRT_DEFAULT_URI VIRSH_DEFAULT_CONNECT_URI LIBVIRT_DEBUG LIBVIRT_LOG_OUTPUTS
HOME="$tmp/home"
XDG_CONFIG_HOME="$tmp/home/.config"
XDG_RUNTIME_DIR="$tmp/run"
export HOME XDG_CONFIG_HOME XDG_RUNTIME_DIR
mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
# libvirt keeps a few process-wide allocations until exit (see lsan.supp).
lsan_suppress "$here/lsan.supp"

NODE="$fixtures/node.xml"
URI="test://$NODE"
JOBS='jobs = { chief = "tf-chief-*"; worker = "tf-worker-*"; ps = "tf-ps-*"; };'
NODMI="dmi_uuid_path = \"$tmp/no-dmi\";"

# conf NAME BODY [ENTRY_EXTRA]: a muster.conf whose only entry is the
# libvirt plugin, named vm, with BODY as its config group.
conf() {
	cat >"$tmp/$1.conf" <<EOC
chain = ( { plugin = "libvirt"; name = "vm"; ${3:-}
            config = { $2 }; } );
EOC
	echo "$tmp/$1.conf"
}

# run_muster CONF ARGS...: sets out, err, rc.  When LeakSanitizer's tracer
# itself crashes ("Tracer caught signal 11 ... LeakSanitizer has encountered
# a fatal error"), no leak check ran at all: a sanitizer-runtime failure
# (valgrind finds nothing in these runs) that hits a few runs depending on
# the scratch directory's name.  That run is repeated once without the leak
# check, with a note, so its functional checks still count (appended, since
# the last value of an ASAN_OPTIONS key wins); a leak report
# ("detected memory leaks") is never retried and fails expect_quiet.
run_muster() {
	c=$1
	shift
	"$MUSTER_BIN" -c "$c" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if grep -q 'LeakSanitizer has encountered a fatal error' "$tmp/err"; then
		echo "# note: LeakSanitizer's tracer crashed on: $*; repeated without the leak check"
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			"$MUSTER_BIN" -c "$c" "$@" >"$tmp/out" 2>"$tmp/err"
		rc=$?
	fi
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
}

# expect_quiet NAME: every line on stderr is muster's own ("muster: ..."):
# libvirt and libxml2 printed nothing.
expect_quiet() {
	if grep -v '^muster: ' "$tmp/err" >/dev/null; then
		fail "$1: something other than muster wrote to stderr"
	else
		pass "$1"
	fi
}

