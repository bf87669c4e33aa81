#!/bin/sh
# Build the pickle decoder's libFuzzer target (reservation/fuzz_decode.c)
# with clang straight from the sources and run it for a bounded time,
# seeded with pickles the machine's own Python writes at every protocol.
#
#   MUSTER_FUZZ_SECONDS  how long to fuzz (default 20)
#   CLANG                the compiler (default clang)
#
# Exit 77 (skipped) when clang cannot build a libFuzzer binary; 1 when the
# fuzzer finds a crash, a leak or undefined behaviour (the reproducer is
# kept and its path printed).
set -u

srcdir=${MUSTER_TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
seconds=${MUSTER_FUZZ_SECONDS:-20}
cc=${CLANG:-clang}

command -v "$cc" >/dev/null 2>&1 || { echo "fuzz: $cc not found: skipped"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/muster-fuzz.XXXXXX") || exit 1
keep=
cleanup() { [ -n "$keep" ] || rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

# The codec needs nothing from configure: an empty config.h will do.
: > "$work/config.h"
res="$srcdir/reservation"
if ! "$cc" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-I"$work" -I"$res" -o "$work/fuzz_decode" \
	"$res/fuzz_decode.c" "$res/pickle_value.c" "$res/pickle_decode.c" "$res/pickle_encode.c" \
	-lm >"$work/build.log" 2>&1; then
	echo "fuzz: $cc cannot build a libFuzzer target: skipped"
	sed 's/^/  /' "$work/build.log" | head -20
	exit 77
fi

mkdir "$work/corpus" "$work/seeds"
python=${PYTHON3:-python3}
if command -v "$python" >/dev/null 2>&1 &&
	"$python" "$srcdir/tests/reservation/gen_fixtures.py" gen "$work/seeds"; then
	for f in "$work/seeds"/*.p[0-9] "$work/seeds"/*.opt3; do
		[ -f "$f" ] && cp "$f" "$work/corpus/"
	done
else
	echo "fuzz: no python3: fuzzing from a minimal seed"
fi
printf '\200\003}X\004\000\000\000typeX\005\000\000\000QUERYs.' > "$work/corpus/query"

echo "fuzz: $(ls "$work/corpus" | wc -l) seeds, ${seconds}s"
cd "$work" || exit 1
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
	./fuzz_decode -max_total_time="$seconds" -max_len=65536 -timeout=10 \
	-rss_limit_mb=2048 -error_exitcode=1 -print_final_stats=1 -artifact_prefix="$work/" \
	corpus >"$work/fuzz.log" 2>&1
rc=$?
tail -25 "$work/fuzz.log"
if [ "$rc" -ne 0 ]; then
	keep=yes
	echo "fuzz: FAILED (exit $rc); log and reproducer in $work"
	ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* 2>/dev/null
	exit 1
fi
echo "fuzz: no failure in ${seconds}s"
exit 0
