#!/bin/sh
# Fuzz every target of tests/fuzz for a bounded time under ASan+UBSan:
# configure the source tree in a scratch directory with clang and
# -fsanitize=fuzzer-no-link, build the targets with libFuzzer's driver
# (make FUZZ_DRIVER= LDFLAGS=-fsanitize=fuzzer,... fuzz-build), then run each over a
# copy of its seed corpus, two at a time.
#
#   run.sh [SRCDIR]          SRCDIR: the configured source tree (default:
#                            the one this script is in)
#   MUSTER_FUZZ_SECONDS      seconds per target (default 30)
#   MUSTER_FUZZ_JOBS         targets fuzzed at once, and make -j (default 2)
#   MUSTER_FUZZ_TARGETS      names to fuzz (default: every one built)
#   MUSTER_FUZZ_BUILD        a build directory to make (or reuse) instead of
#                            a scratch one
#   CLANG, CLANGXX           the compilers (default clang, clang++)
#
# Prints, per target, the executions run (libFuzzer's
# stat::number_of_executed_units) and the corpus size.  Exit 0: nothing
# found; 1: a crash, leak, timeout or undefined behaviour (the reproducer
# and the log are kept, their paths printed; replay a reproducer with the
# target of a normal build: build/tests/fuzz/fuzz_NAME FILE); 77: clang
# cannot build a libFuzzer target here (skipped).
set -u

srcdir=$(cd "${1:-$(dirname "$0")/../..}" && pwd) || exit 1
seconds=${MUSTER_FUZZ_SECONDS:-30}
jobs=${MUSTER_FUZZ_JOBS:-2}
cc=${CLANG:-clang}
cxx=${CLANGXX:-clang++}

work=$(mktemp -d "${TMPDIR:-/tmp}/muster-fuzz.XXXXXX") || exit 1
keep=
cleanup() { [ -n "$keep" ] || rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

# Can this clang link a libFuzzer target with both sanitizers?
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
	>"$work/probe.c"
if ! command -v "$cc" >/dev/null 2>&1 || ! command -v "$cxx" >/dev/null 2>&1 ||
	! "$cc" -fsanitize=fuzzer,address,undefined -o "$work/probe" "$work/probe.c" \
		>"$work/probe.log" 2>&1; then
	echo "fuzz: SKIPPED: $cc cannot build a libFuzzer target (install clang and libclang-rt-dev)"
	sed 's/^/  /' "$work/probe.log" 2>/dev/null | head -5
	exit 77
fi
[ -x "$srcdir/configure" ] || { echo "fuzz: $srcdir/configure missing: run ./autogen.sh"; exit 1; }

start=$(date +%s)
build=${MUSTER_FUZZ_BUILD:-$work/build}
mkdir -p "$build" "$work/corpus" "$work/artifacts" || exit 1
cd "$build" || exit 1
flags="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
if [ ! -f Makefile ]; then
	ccache=
	command -v ccache >/dev/null 2>&1 && ccache="ccache "
	echo "fuzz: configuring with $cc in $build"
	if ! "$srcdir/configure" CC="$ccache$cc" CXX="$ccache$cxx" CFLAGS="$flags" \
		CXXFLAGS="$flags" LDFLAGS="-fsanitize=address,undefined" >"$work/configure.log" 2>&1; then
		keep=yes
		echo "fuzz: FAILED: configure (log: $work/configure.log)"
		tail -20 "$work/configure.log"
		exit 1
	fi
fi
echo "fuzz: building the targets"
if ! make -j"$jobs" FUZZ_DRIVER= LDFLAGS="-fsanitize=fuzzer,address,undefined" fuzz-build \
	>"$work/build.log" 2>&1; then
	keep=yes
	echo "fuzz: FAILED: build (log: $work/build.log)"
	grep -E 'error|Error' "$work/build.log" | head -20
	exit 1
fi
targets=${MUSTER_FUZZ_TARGETS:-$(make -s fuzz-list | tr ' ' '\n' | sed -n 's|^tests/fuzz/fuzz_||p')}
echo "fuzz: built in $(($(date +%s) - start)) s; ${seconds} s per target, $jobs at once"

# One target: new inputs go to a scratch corpus, the seeds are only read.
fuzz_one() {
	mkdir -p "$work/corpus/$1"
	(cd "$work" &&
		ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
		LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$srcdir/tests/fuzz/lsan.supp} \
		UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
		"$build/tests/fuzz/fuzz_$1" -max_total_time="$seconds" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/artifacts/$1-" \
		"$work/corpus/$1" "$srcdir/tests/fuzz/corpus/$1" >"$work/$1.log" 2>&1
	echo $? >"$work/$1.rc")
}

running=0
for t in $targets; do
	fuzz_one "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait

failed=0
for t in $targets; do
	rc=$(cat "$work/$t.rc" 2>/dev/null || echo 1)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t.log" | tail -1)
	units=$(ls "$work/corpus/$t" | wc -l)
	seeds=$(ls "$srcdir/tests/fuzz/corpus/$t" | wc -l)
	if [ "$rc" -eq 0 ]; then
		printf 'fuzz: %-14s %10s executions in %s s, %s seeds + %s new inputs: ok\n' \
			"$t" "${execs:-?}" "$seconds" "$seeds" "$units"
		continue
	fi
	failed=1
	keep=yes
	printf 'fuzz: %-14s %10s executions: FAILED (exit %s), log %s\n' "$t" "${execs:-?}" "$rc" \
		"$work/$t.log"
	grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$work/$t.log" | head -5 | sed 's/^/  /'
	for a in "$work/artifacts/$t"-*; do
		[ -f "$a" ] && echo "  reproducer: $a"
	done
done
echo "fuzz: done in $(($(date +%s) - start)) s"
[ "$failed" -eq 0 ] || { echo "fuzz: FAILED (kept: $work)"; exit 1; }
exit 0
