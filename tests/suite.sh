#!/bin/sh
# The whole test suite, as CI runs it:
#  1. a build under AddressSanitizer + UndefinedBehaviorSanitizer (leaks
#     included), warnings as errors, and `make check` on it;
#  2. `make distcheck` on a plain build (tarball, VPATH, read-only srcdir,
#     install/uninstall), which runs the suite once more.
# Ends with "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
san="$top/build-sanitize"
plain="$top/build-distcheck"
build_ok=1
distcheck_ok=0

[ -x "$top/configure" ] || (cd "$top" && ./autogen.sh) || exit 1

echo "== ASan + UBSan build and make check ($san)"
mkdir -p "$san"
(
  cd "$san" &&
  "$top/configure" --enable-werror \
    CFLAGS="-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all" \
    LDFLAGS="-fsanitize=address,undefined" >configure.out 2>&1 &&
  make -j"$jobs" >make.out 2>&1
) || { echo "sanitizer build failed:"; tail -40 "$san/make.out" "$san/configure.out" 2>/dev/null; build_ok=0; }
if [ "$build_ok" -eq 1 ]; then
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    make -C "$san" -j"$jobs" check >"$san/check.out" 2>&1
  grep -E '^(PASS|FAIL|SKIP|XFAIL|XPASS|ERROR):' "$san/check.out"
  if grep -qE '^(FAIL|ERROR|XPASS):' "$san/check.out"; then
    for log in $(grep -lE '^:test-result: (FAIL|ERROR)' $(find "$san" -name '*.trs') 2>/dev/null); do
      echo "--- ${log%.trs}.log"; tail -30 "${log%.trs}.log"
    done
  fi
fi

echo "== make distcheck ($plain)"
mkdir -p "$plain"
if (cd "$plain" && "$top/configure" >configure.out 2>&1 && make -j"$jobs" distcheck >distcheck.out 2>&1); then
  echo "PASS: make distcheck"
  distcheck_ok=1
else
  echo "FAIL: make distcheck"; tail -40 "$plain/distcheck.out"
fi

# Totals: every test of the sanitizer run, plus distcheck as one.
pass=$(grep -cE '^(PASS|XFAIL):' "$san/check.out" 2>/dev/null); pass=${pass:-0}
fail=$(grep -cE '^(FAIL|ERROR|XPASS):' "$san/check.out" 2>/dev/null); fail=${fail:-0}
skip=$(grep -cE '^SKIP:' "$san/check.out" 2>/dev/null); skip=${skip:-0}
[ "$build_ok" -eq 1 ] || fail=$((fail + 1))
if [ "$distcheck_ok" -eq 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
