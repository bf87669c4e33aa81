#!/bin/sh
# examples/plugin builds outside the tree with nothing but
# `pkg-config --cflags muster-plugin` (the build tree's
# muster-plugin-uninstalled.pc), exports only its entry symbol, and the
# real `muster` program loads it and gets the cluster from it.
set -u
. "${MUSTER_TEST_SRCDIR:?run me from make check}/tests/lib/tap.sh"
src="$MUSTER_TEST_SRCDIR/examples/plugin"
cc=${MUSTER_TEST_CC:-cc}
chmod 0755 "$tmp"
require_tools pkg-config
# pkg-config prefers muster-plugin-uninstalled.pc when it is on the path.
PKG_CONFIG_PATH="$MUSTER_TEST_BUILDDIR/core"
export PKG_CONFIG_PATH
unset PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR
if ! cflags=$(pkg-config --cflags muster-plugin); then
	bail_out "pkg-config --cflags muster-plugin"
fi
echo "# muster-plugin cflags: $cflags"
case " $cflags " in
*" -I$MUSTER_TEST_BUILDDIR/include "*) pass "pkg-config picks the build tree's muster-plugin-uninstalled.pc" ;;
*) fail "pkg-config did not pick the build tree's muster-plugin-uninstalled.pc" ;;
esac
case " $cflags " in
*" -fvisibility=hidden "*) pass "muster-plugin's Cflags have -fvisibility=hidden" ;;
*) fail "muster-plugin's Cflags lack -fvisibility=hidden" ;;
esac
check_eq "muster-plugin's plugin_abi" "$(pkg-config --variable=plugin_abi muster-plugin)" 1

# 1. The documented one-liner, warnings as errors, from a directory of its
#    own (nothing of the tree on the include path but what pkg-config says).
mkdir "$tmp/plugins" "$tmp/build" && chmod 0755 "$tmp/plugins" "$tmp/build"
cp "$src/hostfile.c" "$src/Makefile" "$tmp/build/"
# shellcheck disable=SC2086  # $cc and $cflags are word lists
if ! (cd "$tmp/build" && $cc $cflags -std=c99 -pedantic -Wall -Wextra -Werror \
	-shared -fPIC -o "$tmp/plugins/hostfile.so" hostfile.c); then
	bail_out "the example does not build with: $cc $cflags -shared -fPIC"
fi
chmod 0644 "$tmp/plugins/hostfile.so"
pass "built hostfile.so with pkg-config --cflags muster-plugin"

# 2. Its user-facing Makefile, in the copied directory, when make is at hand
#    (not the make running us: clear what the outer make passes down).
if command -v make >/dev/null 2>&1; then
	if (unset MAKEFLAGS MFLAGS MAKELEVEL MAKEFILES
	    cd "$tmp/build" && make -s CC="$cc" CFLAGS='-O2 -Wall -Wextra -Werror'); then
		pass "examples/plugin/Makefile builds hostfile.so"
		check "the Makefile's hostfile.so exports only muster_plugin_entry_v1" \
			sh "$MUSTER_TEST_SRCDIR/tests/abi/check-exports.sh" "$tmp/build/hostfile.so"
	else
		fail "examples/plugin/Makefile"
	fi
fi

# 3. One exported symbol.
check "hostfile.so exports only muster_plugin_entry_v1" \
	sh "$MUSTER_TEST_SRCDIR/tests/abi/check-exports.sh" "$tmp/plugins/hostfile.so"

# 4. Loaded by the real program.
cat >"$tmp/hosts" <<'HOSTS'
# job    address              accelerators
worker   w0.example:2222      GPU=8
ps       [fd00::5]:2222
worker   w1.example:2222      GPU=8   # a comment

HOSTS
write_conf() { # FILE-OPTION [no-fallback]
	{
		echo "plugin_path = \"$tmp/plugins\";"
		echo "chain = ("
		printf '  { plugin = "hostfile"; config = { file = "%s"; rpc_layer = "grpc"; }; }' "$1"
		if [ $# -eq 1 ]; then
			printf ',\n  { plugin = "static"; config = { jobs = { fallback = ["fallback.invalid:1"]; }; }; }'
		fi
		printf '\n);\n'
	} >"$tmp/muster.conf"
}

# resolves NAME EXPECTED-IN-COMPACT-OUTPUT... : `muster resolve`, whitespace removed
resolves() {
	name=$1; shift
	if ! out=$("$MUSTER_BIN" -c "$tmp/muster.conf" resolve 2>"$tmp/err"); then
		fail "$name: muster resolve failed"
		return
	fi
	compact=$(printf '%s' "$out" | tr -d ' \t\n')
	for want in "$@"; do
		case $compact in
		*"$want"*) ;;
		*) fail "$name: no $want in:" "$out"; return ;;
		esac
	done
	pass "$name"
}

write_conf "$tmp/hosts"
resolves "muster resolve through hostfile.so" \
	'"cluster":{"worker":["w0.example:2222","w1.example:2222"],"ps":["[fd00::5]:2222"]}' \
	'"rpc_layer":"grpc"' \
	'"worker":{"0":{"GPU":8},"1":{"GPU":8}}'

if out=$("$MUSTER_BIN" -c "$tmp/muster.conf" plugins 2>&1) &&
   printf '%s\n' "$out" | grep -qF "$tmp/plugins/hostfile.so" &&
   printf '%s\n' "$out" | grep -qi loaded; then
	pass "muster plugins shows $tmp/plugins/hostfile.so loaded"
else
	fail "muster plugins:" "$out"
fi

# No host file: notfound, and the chain falls back to static.
write_conf "$tmp/absent"
resolves "hostfile answers notfound without its file" '"cluster":{"fallback":["fallback.invalid:1"]}'

# A malformed line: unavail, the chain goes on; the reason names file:line.
printf 'worker w0.example:2222\nworker no-port\n' >"$tmp/bad"
write_conf "$tmp/bad"
resolves "hostfile answers unavail for a malformed file" '"cluster":{"fallback":["fallback.invalid:1"]}'
# Alone in the chain, its answer is final: the error says why.
write_conf "$tmp/bad" no-fallback
if "$MUSTER_BIN" -c "$tmp/muster.conf" resolve >/dev/null 2>"$tmp/err"; then
	fail "muster resolve succeeded on a malformed host file"
elif grep -qF "$tmp/bad:2: 'no-port' is not host:port" "$tmp/err"; then
	pass "the error gives the reason and file:line"
else
	fail "muster resolve does not give the reason"
fi

finish
