#!/bin/sh
# libcrypto is loaded only when reservation authentication needs it
# (tfos/wire/crypto.h): libmuster does not link it, `muster resolve` never
# maps it, `muster reserve --auth-key-file` does, and one that cannot load
# it fails at start naming the library and why.  auth.sh shows the
# authenticated protocol itself working.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/lib/tap.sh"
cc=${MUSTER_TEST_CC:-cc}
require_tools readelf "$cc"
require_plugin tf_config
"$MUSTER_BIN" reserve --help >/dev/null 2>&1 || skip_all "muster reserve is not built"

# needed FILE: the shared objects FILE names as NEEDED, one a line.
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'; }

# The soname the build binds: the spark plugin links libcrypto itself.
spark=$MUSTER_TEST_BUILDDIR/plugins/spark/.libs/spark.so
soname=$(needed "$spark" | grep '^libcrypto\.so\.' || :)
check "the spark plugin links libcrypto (${soname:-none})" test -n "$soname"

needed "$MUSTER_TEST_BUILDDIR/core/.libs/libmuster.so" >"$tmp/libmuster.needed"
check "libmuster.so's NEEDED entries are listed" grep -q '^libc\.so\.' "$tmp/libmuster.needed"
if grep -q '^libcrypto' "$tmp/libmuster.needed"; then
	fail "libmuster.so does not link libcrypto" "$(cat "$tmp/libmuster.needed")"
else
	pass "libmuster.so does not link libcrypto"
fi

# loaded NAME: the last run (under LD_DEBUG=libs) loaded a library NAME*.
loaded() { cat "$tmp"/ld.* | grep -q "calling init: .*/$1"; }

cat >"$tmp/resolve.conf" <<'CONF'
chain = (
  { plugin = "tf_config"; on_unavail = "return"; },
  { plugin = "static"; config = { jobs = { worker = [ "localhost:2222" ]; };
                                  task = { type = "worker"; index = 0; }; }; }
);
CONF
unset TF_CONFIG
LD_DEBUG=libs LD_DEBUG_OUTPUT=$tmp/ld run -c "$tmp/resolve.conf" resolve
expect_status 0 "muster resolve"
check "muster resolve loads libmuster (LD_DEBUG=libs lists it)" loaded libmuster.so
if loaded libcrypto; then
	fail "muster resolve does not load libcrypto" "$(grep libcrypto "$tmp"/ld.*)"
else
	pass "muster resolve does not load libcrypto"
fi

# An authenticated `muster reserve` loads it when it reads its key (then
# times out: nobody registers).
printf '%s\n' 0123456789abcdef0123456789abcdef >"$tmp/key"
chmod 600 "$tmp/key"
rm -f "$tmp"/ld.*
LD_DEBUG=libs LD_DEBUG_OUTPUT=$tmp/ld run reserve --size 1 --host 127.0.0.1 --timeout 0.1 \
	--auth-key-file "$tmp/key"
expect_err_match "\\(authenticated\\)" "muster reserve --auth-key-file starts"
check "muster reserve --auth-key-file loads $soname" loaded "$soname"

# One whose $soname is not OpenSSL's (first on LD_LIBRARY_PATH): a clear
# error at start, no crash.
mkdir "$tmp/fake"
echo 'int not_libcrypto;' >"$tmp/fake/fake.c"
check "a stand-in $soname builds" "$cc" -shared -fPIC -o "$tmp/fake/$soname" "$tmp/fake/fake.c"
LD_LIBRARY_PATH=$tmp/fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	run reserve --size 1 --host 127.0.0.1 --auth-key-file "$tmp/key"
expect_status 4 "muster reserve without a usable $soname"
expect_err_match "^muster: reserve: authentication needs $soname, which cannot be loaded: .*$tmp/fake/$soname: undefined symbol: EVP_" \
	"... says which library and why"
finish
