#!/bin/sh
# The installed muster, used the way its users use it: `make install
# DESTDIR=` of this very build into a temporary root, the layout checked
# (<muster/*.h>, plugins, man pages, the default config, .pc files, bash
# completion, the Python package), then, with nothing but that tree and
# pkg-config on it, the README's first C example compiled and run against
# the installed default config, the installed Python package (installed
# where the configured python3 looks) resolving as the installed `muster`
# does, `pip install .` into a venv against the installed library doing the
# same, and examples/plugin built by its own Makefile
# from a copy elsewhere, installed into the tree and loaded by the
# installed `muster`.
set -u
: "${MUSTER_TEST_SRCDIR:?run me from make check}" "${MUSTER_TEST_BUILDDIR:?}"
: "${MUSTER_INST_BINDIR:?}" "${MUSTER_INST_LIBDIR:?}" "${MUSTER_INST_INCLUDEDIR:?}"
: "${MUSTER_INST_SYSCONFDIR:?}" "${MUSTER_INST_MANDIR:?}" "${MUSTER_INST_PKGCONFIGDIR:?}"
: "${MUSTER_INST_BASHCOMPLETIONDIR:?}"
. "$MUSTER_TEST_SRCDIR/tests/lib/tap.sh"
. "$MUSTER_TEST_SRCDIR/tests/python/preload.sh"
src=$MUSTER_TEST_SRCDIR
build=$MUSTER_TEST_BUILDDIR
cc=${MUSTER_TEST_CC:-cc}
cflags=${MUSTER_TEST_CFLAGS:-}
ldflags=${MUSTER_TEST_LDFLAGS:-}
make=${MUSTER_TEST_MAKE:-make}
# Installed directories must not be group-writable: muster refuses plugins there.
umask 022

require_tools pkg-config "$make"
chmod 0755 "$tmp"
root=$tmp/root
# The make running us passes its jobserver and flags down; these makes are the user's own.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEFILES

# show FILE: a failed step's log, indented.
show() { sed 's/^/#   /' "$1"; }

# 1. make install DESTDIR= of this build.
if ! "$make" -C "$build" install DESTDIR="$root" >"$tmp/install.out" 2>&1; then
	fail "make install DESTDIR=$root:"; tail -40 "$tmp/install.out" | sed 's/^/#   /'
	finish
fi
pass "make install DESTDIR=$root"
bindir=$root$MUSTER_INST_BINDIR
libdir=$root$MUSTER_INST_LIBDIR
pluginsdir=$libdir/muster/plugins
conf=$root$MUSTER_INST_SYSCONFDIR/muster/muster.conf
pcdir=$root$MUSTER_INST_PKGCONFIGDIR

# 2. The layout packagers and users rely on.
# installed PATH...: each file exists in the installed tree.
installed() {
	for f in "$@"; do
		check "installed: ${f#"$root"}" test -f "$f"
	done
}
# <muster/reserve.h> whatever configure found: without the reservation
# server its calls fail, saying so.
headers="muster.h plugin.h reserve.h version.h"
for h in $headers; do installed "$root$MUSTER_INST_INCLUDEDIR/muster/$h"; done
for la in "$build"/plugins/*/*.la; do
	name=$(basename "$la" .la)
	[ "$name" = "$(basename "$(dirname "$la")")" ] && installed "$pluginsdir/$name.so"
done
installed "$bindir/muster" "$conf" "$pcdir/muster.pc" "$pcdir/muster-plugin.pc" \
	"$root$MUSTER_INST_MANDIR/man1/muster.1" "$root$MUSTER_INST_MANDIR/man3/muster.3" \
	"$root$MUSTER_INST_MANDIR/man5/muster.conf.5"
check "${conf#"$root"} is conf/muster.conf" cmp -s "$src/conf/muster.conf" "$conf"
completion=$root$MUSTER_INST_BASHCOMPLETIONDIR/muster
check "${completion#"$root"} is completion/muster" cmp -s "$src/completion/muster" "$completion"
# The Python package, when configure found Python's headers.
pyext=
if [ -f "$build/python/_muster.la" ]; then
	pkg=$root${MUSTER_INST_PYTHONDIR:?}/muster
	installed "$pkg/__init__.py" "$pkg/py.typed"
	for pyext in "$pkg"/_muster*.so; do :; done
	installed "$pyext"
else
	skip "installed: the Python package" "configure found no Python headers"
fi
if [ -d "$root$MUSTER_INST_INCLUDEDIR/include" ]; then
	fail "headers installed under ${MUSTER_INST_INCLUDEDIR}/include/"
else
	pass "no headers under ${MUSTER_INST_INCLUDEDIR}/include/"
fi

# From here on only the installed tree: its .pc files, its library, its
# plugins, its default config.
PKG_CONFIG_LIBDIR=$pcdir PKG_CONFIG_PATH=$pcdir PKG_CONFIG_SYSROOT_DIR=$root
LD_LIBRARY_PATH=$libdir MUSTER_PLUGIN_PATH=$pluginsdir MUSTER_CONF=$conf
export PKG_CONFIG_LIBDIR PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
export LD_LIBRARY_PATH MUSTER_PLUGIN_PATH MUSTER_CONF
unset TF_CONFIG
muster=$bindir/muster

# uses_installed_lib PROGRAM: its libmuster is the installed one.
uses_installed_lib() {
	lib=$(ldd "$1" 2>/dev/null | sed -n 's/^[[:space:]]*libmuster\.so[^ ]* => \([^ ]*\).*/\1/p')
	case $lib in
	"$libdir"/*) pass "$1 loads the installed libmuster" ;;
	*) fail "$1 loads libmuster from '$lib', not from $libdir" ;;
	esac
}
command -v ldd >/dev/null 2>&1 && uses_installed_lib "$muster"

if ! "$muster" resolve >"$tmp/muster.json" 2>"$tmp/muster.err"; then
	fail "the installed muster resolve with the installed default config:"; show "$tmp/muster.err"
else
	pass "the installed muster resolves with the installed default config"
fi

# The installed Python package (its extension on the installed libmuster)
# answers as the installed program.
if [ -f "$pyext" ]; then
	command -v ldd >/dev/null 2>&1 && uses_installed_lib "$pyext"
	(
		python_preload "$pyext"
		PYTHONPATH=$root$MUSTER_INST_PYTHONDIR PYTHONDONTWRITEBYTECODE=1 \
			"${MUSTER_PYTHON:-python3}" -c 'import sys, muster
print(muster.__file__)
print(muster.resolve(sys.argv[1]).to_json())' "$conf"
	) >"$tmp/py.out" 2>"$tmp/py.err"
	if [ "$(sed -n 1p "$tmp/py.out")" != "$pkg/__init__.py" ]; then
		fail "import muster does not load the installed package:"; show "$tmp/py.out"; show "$tmp/py.err"
	else
		pass "import muster loads ${pkg#"$root"}"
	fi
	if [ "$(sed -n 2p "$tmp/py.out")" != "$(cat "$tmp/muster.json")" ]; then
		fail "the installed package's muster.resolve().to_json() is not muster resolve's JSON:"
		show "$tmp/py.out"; show "$tmp/py.err"; echo "#   muster resolve:"; show "$tmp/muster.json"
	else
		pass "the installed package's muster.resolve().to_json() is muster resolve's JSON"
	fi
fi

# Where the configured Python looks: with a prefix it searches a directory
# under (the default /usr/local and Debian's python3: dist-packages), the
# package must be installed into one of them, so that `import muster` works
# after the README's quick start.
if [ -f "$pyext" ]; then
	python=${MUSTER_PYTHON:-python3}
	searched=$("$python" -c 'import site, sys
lib = sys.argv[1].rstrip("/") + "/lib/"
print(" ".join(d for d in site.getsitepackages() if d.startswith(lib)))' "${MUSTER_INST_PREFIX:?}")
	case " $searched " in
	"  ") skip "the package is where $python looks" "$python searches nothing under $MUSTER_INST_PREFIX" ;;
	*" $MUSTER_INST_PYTHONDIR "*) pass "the package is where $python looks ($MUSTER_INST_PYTHONDIR)" ;;
	*) fail "the package went to $MUSTER_INST_PYTHONDIR; $python looks in $searched" ;;
	esac
fi

# `pip install .` (pyproject.toml, setup.py), as ML users install a Python
# package: offline, into a venv that sees Debian's build backends
# (python3-venv, python3-setuptools, python3-wheel), its extension built
# against the installed libmuster that PKG_CONFIG_PATH names; then that
# venv's `import muster` answers as the installed `muster resolve`.
pip_install() {
	py=/usr/bin/python3
	[ -x "$py" ] || py=${MUSTER_PYTHON:-python3}
	missing=
	"$py" -c 'import ensurepip, venv' 2>/dev/null || missing="$missing python3-venv"
	"$py" -c 'import setuptools' 2>/dev/null || missing="$missing python3-setuptools"
	"$py" -c 'import wheel' 2>/dev/null || missing="$missing python3-wheel"
	if [ -n "$missing" ]; then
		fail "pip install .: $py lacks$missing (they are in .ci/packages)"
		return
	fi
	# pip writes beside the sources, which may be read-only (distcheck).
	mkdir "$tmp/pysrc"
	cp -R "$src/pyproject.toml" "$src/setup.py" "$src/README.md" "$src/python" "$tmp/pysrc/"
	chmod -R u+w "$tmp/pysrc"
	if ! "$py" -m venv --system-site-packages "$tmp/venv" >"$tmp/venv.out" 2>&1; then
		fail "$py -m venv --system-site-packages:"; show "$tmp/venv.out"
		return
	fi
	# No index, no cache, no pip settings from this environment or a
	# config file: the build uses what is installed and nothing else.
	# shellcheck disable=SC2046 # the names of the PIP_* variables
	if ! (unset PYTHONPATH $(env | sed -n 's/^\(PIP_[A-Z0-9_]*\)=.*/\1/p')
	      PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1
	      export PIP_CONFIG_FILE PIP_DISABLE_PIP_VERSION_CHECK
	      cd "$tmp/pysrc" &&
	      "$tmp/venv/bin/pip" install --no-build-isolation --no-deps --no-index --no-cache-dir .
	     ) >"$tmp/pip.out" 2>&1; then
		fail "pip install --no-build-isolation --no-deps --no-index . (PKG_CONFIG_PATH=$pcdir):"
		show "$tmp/pip.out"
		return
	fi
	pass "pip install . into a venv, against the installed libmuster"
	for venvext in "$tmp"/venv/lib/python3*/site-packages/muster/_muster*.so; do :; done
	command -v ldd >/dev/null 2>&1 && uses_installed_lib "$venvext"
	reserve=False
	[ -f "$root$MUSTER_INST_INCLUDEDIR/muster/reserve.h" ] && reserve=True
	(
		python_preload "$venvext"
		unset PYTHONPATH
		cd / && "$tmp/venv/bin/python" -c 'import sys, muster
print(muster.__file__)
print(muster.resolve())
print(hasattr(muster._muster, "ReserveServer") == (sys.argv[1] == "True"))' "$reserve"
	) >"$tmp/venv-py.out" 2>"$tmp/venv-py.err"
	case $(sed -n 1p "$tmp/venv-py.out") in
	"$tmp"/venv/lib/python3*/site-packages/muster/__init__.py)
		pass "the venv's import muster loads the package pip installed" ;;
	*) fail "the venv's import muster does not load the package pip installed:"
	   show "$tmp/venv-py.out"; show "$tmp/venv-py.err" ;;
	esac
	if [ "$(sed -n 2p "$tmp/venv-py.out")" != "$(cat "$tmp/muster.json")" ]; then
		fail "the venv's print(muster.resolve()) is not muster resolve's JSON:"
		show "$tmp/venv-py.out"; show "$tmp/venv-py.err"
	else
		pass "the venv's print(muster.resolve()) is muster resolve's JSON"
	fi
	if [ "$(sed -n 3p "$tmp/venv-py.out")" = True ]; then
		pass "the venv's extension has muster.reserve's server exactly when libmuster has <muster/reserve.h> ($reserve)"
	else
		fail "the venv's extension and <muster/reserve.h> disagree (installed: $reserve)"
	fi
}
if [ -f "$pyext" ]; then
	pip_install
else
	skip "pip install ." "this build has no Python package (configure found no Python headers)"
fi

# 3. The README's first C block, as the body of main(), with
#    `pkg-config --cflags --libs muster` and the build's own flags (its
#    sanitizers, which the installed library was built with).
awk '/^```c[[:space:]]*$/ { inside = 1; next } inside && /^```/ { exit } inside' \
	"$src/README.md" >"$tmp/block.c"
if [ ! -s "$tmp/block.c" ]; then
	fail "README.md has no \`\`\`c block"
	finish
fi
pass "README.md has a \`\`\`c block"
{
	printf '#include <muster/muster.h>\n#include <err.h>\n#include <stdio.h>\n\nint main(void)\n{\n'
	cat "$tmp/block.c"
	printf '}\n'
} >"$tmp/readme.c"
if ! pcflags=$(pkg-config --cflags --libs muster 2>"$tmp/pc.err"); then
	fail "pkg-config --cflags --libs muster:"; show "$tmp/pc.err"
	finish
fi
pass "pkg-config --cflags --libs muster: $pcflags"
# shellcheck disable=SC2086  # word lists
if ! $cc $cflags -Wall -Wextra -Werror -o "$tmp/readme" "$tmp/readme.c" $ldflags $pcflags \
	>"$tmp/cc.out" 2>&1; then
	fail "the README's C example does not compile against the installed tree:"
	show "$tmp/cc.out"; echo "#   the program:"; show "$tmp/readme.c"
else
	pass "the README's C example compiles against the installed tree"
	command -v ldd >/dev/null 2>&1 && uses_installed_lib "$tmp/readme"
	if ! "$tmp/readme" >"$tmp/readme.json" 2>"$tmp/readme.err"; then
		fail "the README's C example failed:"; show "$tmp/readme.err"
	elif ! tr -d ' \t\n' <"$tmp/readme.json" | grep -qF '"cluster":{"worker":["localhost:2222"]}'; then
		fail "the README's C example did not print the default config's cluster:"; show "$tmp/readme.json"
	elif command -v python3 >/dev/null 2>&1 &&
	     ! python3 -c 'import json, sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); sys.exit(a != b)' \
		"$tmp/readme.json" "$tmp/muster.json" 2>"$tmp/py.err"; then
		fail "the README's C example does not print muster resolve's JSON:"
		show "$tmp/readme.json"; echo "#   muster resolve:"; show "$tmp/muster.json"; show "$tmp/py.err"
	else
		pass "the README's C example prints $(cat "$tmp/readme.json")"
	fi
fi

# 4. examples/plugin, copied elsewhere, built by its own Makefile with
#    PKG_CONFIG_PATH on the installed tree, installed into it by its own
#    `make install`.
mkdir "$tmp/hostfile"
for f in Makefile hostfile.c hosts.example; do
	cp "$src/examples/plugin/$f" "$tmp/hostfile/$f"
done
if ! (cd "$tmp/hostfile" && "$make" CC="$cc") >"$tmp/plugin.out" 2>&1; then
	fail "examples/plugin's Makefile against the installed tree:"; show "$tmp/plugin.out"
	finish
fi
pass "examples/plugin's Makefile builds against the installed tree"
# pkgconf puts the sysroot before pluginsdir itself; pkg-config does not.
case $(pkg-config --variable=pluginsdir muster-plugin) in
"$root"/*) destdir= ;;
*) destdir=$root ;;
esac
if ! (cd "$tmp/hostfile" && "$make" install DESTDIR="$destdir") >"$tmp/plugin.out" 2>&1; then
	fail "examples/plugin's make install into the installed tree:"; show "$tmp/plugin.out"
	finish
fi
pass "examples/plugin's make install into the installed tree"
installed "$pluginsdir/hostfile.so"

printf 'worker w0.example:2222 GPU=8\nps p0.example:2222\n' >"$tmp/hosts"
cat >"$tmp/hostfile.conf" <<CONF
chain = ( { plugin = "hostfile"; config = { file = "$tmp/hosts"; rpc_layer = "grpc"; }; } );
CONF
if ! "$muster" -c "$tmp/hostfile.conf" plugins >"$tmp/plugins.out" 2>&1 ||
   ! grep -E "^hostfile .*$pluginsdir/hostfile\.so.* loaded\$" "$tmp/plugins.out" >/dev/null; then
	fail "the installed muster does not show $pluginsdir/hostfile.so loaded:"; show "$tmp/plugins.out"
else
	pass "the installed muster shows $pluginsdir/hostfile.so loaded"
fi
if ! "$muster" -c "$tmp/hostfile.conf" resolve >"$tmp/resolve.out" 2>&1 ||
   ! tr -d ' \t\n' <"$tmp/resolve.out" | grep -qF '"cluster":{"worker":["w0.example:2222"],"ps":["p0.example:2222"]}'; then
	fail "the installed muster does not resolve through hostfile.so:"; show "$tmp/resolve.out"
else
	pass "the installed muster resolves through $pluginsdir/hostfile.so"
fi

finish
