#!/bin/sh
# The whole test suite, as CI runs it:
#  1. a build under AddressSanitizer + UndefinedBehaviorSanitizer (leaks
#     included), warnings as errors, and `make check` on it;
#  2. the kubernetes backend against a real kube-apiserver with etcd on
#     loopback (../shared/tools/kube-apiserver; built once per machine when
#     absent, about 10 minutes), through the sanitizer build;
#  3. `make distcheck` on a plain build (tarball, VPATH, read-only srcdir,
#     install/uninstall), which runs the suite once more;
#  4. every libFuzzer target of tests/fuzz fuzzed for MUSTER_FUZZ_SECONDS
#     (default 30) each under ASan+UBSan, built with clang (tests/fuzz/run.sh).
# Both builds are out of tree, in build-sanitize/ and build-distcheck/.
# After an in-tree `./configure && make` (the README's quick start) the
# source tree cannot host them ("source directory already configured"), so
# they build from a clean copy instead: `make distdir` of the in-tree build
# into build-sources/, the files a `make distclean`-ed tree has; the in-tree
# build is left as it is.
# Every failure prints the log that explains it.  Ends with
# "N passed, N failed, N skipped": every check of the sanitizer run (the
# TAP results its .trs files record), plus distcheck, the kubernetes
# integration and fuzzing as one each.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
san="$top/build-sanitize"
plain="$top/build-distcheck"
copy="$top/build-sources"
build_ok=0
check_failed=0
distcheck_ok=0
kint=skip
fuzz=skip

# show FILE [LINES]: the end of a log, under its name.
show() {
	if [ -s "$1" ]; then
		echo "--- $1 (last ${2:-40} lines)"
		tail -n "${2:-40}" "$1"
	else
		echo "--- $1: missing or empty"
	fi
}

# show_make_errors FILE: a failed make's errors with some context, else its end.
show_make_errors() {
	if grep -qE 'error:|Error [0-9]+|\*\*\*|^(FAIL|ERROR):' "$1" 2>/dev/null; then
		echo "--- $1 (errors)"
		grep -nE -B3 -A3 'error:|Error [0-9]+|\*\*\*|^(FAIL|ERROR):' "$1" | head -n 80
	else
		show "$1"
	fi
}

# show_configure_failure DIR: what configure printed, and the checks that
# config.log records last (before its dump of variables).
show_configure_failure() {
	show "$1/configure.out" 20
	echo "--- $1/config.log (the last checks)"
	sed '/^## Cache variables\. ##$/,$d' "$1/config.log" 2>/dev/null | tail -n 40
}

# results DIR: the TAP result of every check under DIR, one a line.
results() {
	find "$1" -name '*.trs' -exec sed -n 's/^:test-result: \([A-Z]*\).*/\1/p' {} + 2>/dev/null
}

# show_failed_tests DIR: the log of each test that failed under DIR.
show_failed_tests() {
	find "$1" -name '*.trs' -exec grep -lE '^:test-result: (FAIL|ERROR|XPASS)' {} + 2>/dev/null |
	while read -r trs; do
		show "${trs%.trs}.log" 60
	done
}

# configure_in DIR [ARGS...]: configure DIR from $src, afresh if it was
# configured from another source tree.
configure_in() {
	dir=$1; shift
	if [ -f "$dir/Makefile" ] && ! grep -qxF "abs_top_srcdir = $src" "$dir/Makefile"; then
		rm -rf "$dir"
	fi
	mkdir -p "$dir" && (cd "$dir" && "$src/configure" "$@" >configure.out 2>&1)
}

# The suite may be the first command run on a fresh Debian machine: as
# root, what .ci/packages lists and dpkg does not have is installed first
# (as the quick start's command would), so the two README commands work in
# either order.  Elsewhere nothing is installed; a missing tool fails the
# step that needs it, with its log.
missing_packages() {
	while read -r pkg; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q ' installed$' ||
			printf '%s\n' "$pkg"
	done <"$top/.ci/packages"
}
if [ "$(id -u)" = 0 ] && [ -r "$top/.ci/packages" ] && command -v dpkg-query >/dev/null &&
	command -v apt-get >/dev/null; then
	missing=$(missing_packages)
	if [ -n "$missing" ]; then
		echo "== installing what the suite needs:" $missing
		# shellcheck disable=SC2086 # one package a word
		if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends $missing; } >"$top/packages.out" 2>&1; then
			echo "FAIL: apt-get install"
			show "$top/packages.out"
			echo "0 passed, 1 failed, 0 skipped"
			exit 1
		fi
	fi
fi

src=$top
if [ -f "$top/config.status" ]; then
	echo "== the source tree is configured in place: building from a clean copy ($copy)"
	rm -rf "$copy"
	if ! make -C "$top" distdir distdir="$copy" >"$top/build-sources.out" 2>&1; then
		echo "FAIL: make distdir of the in-tree build"
		show_make_errors "$top/build-sources.out"
		echo "0 passed, 1 failed, 0 skipped"
		exit 1
	fi
	src=$copy
elif [ ! -x "$top/configure" ]; then
	if ! (cd "$top" && ./autogen.sh) >"$top/autogen.out" 2>&1; then
		echo "FAIL: ./autogen.sh"
		show "$top/autogen.out"
		echo "0 passed, 1 failed, 0 skipped"
		exit 1
	fi
fi

echo "== ASan + UBSan build and make check ($san)"
# No count may come from an earlier run's output.
rm -f "$san/make.out" "$san/check.out"
[ -d "$san" ] && find "$san" -name '*.trs' -exec rm -f {} +
sanitize="-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
if ! configure_in "$san" --enable-werror CFLAGS="$sanitize" CXXFLAGS="$sanitize" \
	LDFLAGS="-fsanitize=address,undefined"; then
	echo "FAIL: configure of the sanitizer build"
	show_configure_failure "$san"
elif ! make -C "$san" -j"$jobs" >"$san/make.out" 2>&1; then
	echo "FAIL: the sanitizer build"
	show_make_errors "$san/make.out"
else
	build_ok=1
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		make -C "$san" -j"$jobs" check >"$san/check.out" 2>&1 || check_failed=1
	# One line a test, and each check that did not pass.
	find "$san" -name '*.trs' | sort | while read -r trs; do
		printf '%s: %s\n' "$(sed -n 's/^:global-test-result: //p' "$trs")" "${trs#"$san"/}"
	done | sed 's/\.trs$//'
	grep -E '^(FAIL|SKIP|XPASS|ERROR):' "$san/check.out"
	if grep -qE '^(FAIL|ERROR|XPASS):' "$san/check.out"; then
		show_failed_tests "$san"
	elif [ "$check_failed" -eq 1 ]; then
		# make check failed before or beside the tests (a test program that does not build).
		echo "FAIL: make check"
		show_make_errors "$san/check.out"
	fi
fi

echo "== kubernetes integration against a real kube-apiserver"
if [ "$build_ok" -eq 1 ] && { [ -d "$top/../shared/tools/kube-apiserver" ] || [ -n "${MUSTER_KUBE_TOOLS:-}" ]; }; then
  if ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
     "$top/tests/kubernetes-integration/run.sh" "$san" >"$san/kint.out" 2>&1; then
    echo "PASS: kubernetes integration ($(grep -c '^ok ' "$san/kint.out") cases)"
    kint=pass
  else
    echo "FAIL: kubernetes integration"; grep -E '^(not ok|Bail out)' "$san/kint.out"; show "$san/kint.out"
    kint=fail
  fi
else
  echo "SKIP: kubernetes integration: no ../shared/tools/kube-apiserver (set MUSTER_KUBE_TOOLS)"
fi

echo "== make distcheck ($plain)"
if ! configure_in "$plain"; then
	echo "FAIL: make distcheck: configure"
	show_configure_failure "$plain"
elif make -C "$plain" -j"$jobs" distcheck >"$plain/distcheck.out" 2>&1; then
	echo "PASS: make distcheck"
	distcheck_ok=1
else
	echo "FAIL: make distcheck"
	show_make_errors "$plain/distcheck.out"
	# A failed distcheck leaves its tree behind: the tests that failed in it.
	show_failed_tests "$plain"
	for log in "$plain"/muster-*/_build/sub/config.log; do
		if [ -f "$log" ] && ! grep -q '^configure: exit 0' "$log"; then show "$log"; fi
	done
fi

echo "== fuzzing every untrusted parser (tests/fuzz/run.sh)"
"$top/tests/fuzz/run.sh" "$src" >"$top/fuzz.out" 2>&1
case $? in
0) echo "PASS: fuzzing"; fuzz=pass ;;
77) echo "SKIP: fuzzing: no libFuzzer-capable clang"; fuzz=skip ;;
*) echo "FAIL: fuzzing"; show "$top/fuzz.out" 60; fuzz=fail ;;
esac
grep -E '^fuzz:' "$top/fuzz.out"

# Totals: every check of the sanitizer run, plus distcheck, the kubernetes
# integration and fuzzing as one each.
pass=$(results "$san" | grep -cE '^(PASS|XFAIL)$'); pass=${pass:-0}
fail=$(results "$san" | grep -cE '^(FAIL|ERROR|XPASS)$'); fail=${fail:-0}
skip=$(results "$san" | grep -cE '^SKIP$'); skip=${skip:-0}
[ "$build_ok" -eq 1 ] || fail=$((fail + 1))
[ "$check_failed" -eq 1 ] && [ "$fail" -eq 0 ] && fail=1
if [ "$distcheck_ok" -eq 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
for step in $kint $fuzz; do
	case $step in pass) pass=$((pass + 1)) ;; fail) fail=$((fail + 1)) ;; *) skip=$((skip + 1)) ;; esac
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
