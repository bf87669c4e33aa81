#!/bin/sh
# @include in muster.conf: every included file gets the top-level file's
# checks before it is read (a regular file, the 64 MiB cap), an absolute
# path is read as written and a relative one against the including file's
# directory, wherever muster was started; messages name the file a line
# was written in.
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"

static() { # JOB: a chain of one static entry with one task
	printf 'chain = ( { plugin = "static"; config = { jobs = { %s = ["%s:1"]; }; }; } );\n' "$1" "$1"
}
mkdir -p "$tmp/d/sub" "$tmp/site"

# run_in DIR ARGS...: run, from DIR.
run_in() {
	dir=$1
	shift
	cd "$dir"
	run "$@"
	cd - >/dev/null
}

# costs SECONDS MB WHAT ARGS...: muster ARGS (stderr in $tmp/err, the
# status in $status) took less than SECONDS and MB (its most resident
# memory).
costs() {
	limits="$1 $2"
	what=$3
	shift 3
	# shellcheck disable=SC2046 # three numbers
	set -- $(python3 - "$MUSTER_BIN" "$@" 2>"$tmp/err" <<'EOF'
import resource, subprocess, sys, time
t = time.monotonic()
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
print(rc, "%.3f" % (time.monotonic() - t), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
EOF
)
	status=$1
	# shellcheck disable=SC2086 # two numbers
	set -- "$@" $limits
	if python3 -c 'import sys; t, kb, s, mb = sys.argv[1:]; sys.exit(not (float(t) < float(s) and int(kb) < int(mb) << 10))' "$2" "$3" "$4" "$5"; then
		pass "$what ($2 s, $3 KB)"
	else
		fail "$what: under $4 s and $5 MB" "$2 s, $3 KB"
	fi
}

# A 1 GB sparse file is refused by its size, before a byte of it is read.
truncate -s 1G "$tmp/d/big.conf"
printf '@include "big.conf"\n' >"$tmp/d/top.conf"
cd "$tmp"
costs 0.5 64 "an @include of a 1 GB file is refused at once" -c d/top.conf check
cd - >/dev/null
expect_status $EX_CONFIG "an @include of a 1 GB file: check exits 4"
expect_err_match 'top\.conf:1: @include "big\.conf": .*d/big\.conf: 1073741824 bytes is larger than 67108864$' \
	"... naming the directive and the included file's size"

# The cap is on the config with everything it includes: files that pass
# one by one but not together.
# (Comment lines: libconfig reads many short tokens in linear time.)
yes '# forty' | head -c $((40 << 20)) >"$tmp/d/forty.conf"
{ echo '@include "forty.conf"'; echo '@include "forty.conf"'; static w; } >"$tmp/d/top.conf"
run -c "$tmp/d/top.conf" check
expect_status $EX_CONFIG "two 40 MiB includes pass the cap together: exit 4"
expect_err_match 'top\.conf:2: @include "forty\.conf": .*forty\.conf: 41943040 bytes more would make the config, with what it includes, larger than 67108864 bytes$' \
	"... naming the second one"
{ echo '@include "forty.conf"'; static w; } >"$tmp/d/top.conf"
run -c "$tmp/d/top.conf" resolve
expect_status 0 "one 40 MiB include is within the cap"
rm -f "$tmp/d/forty.conf"

# Within the cap, time grows with the size, not with its square: 8 MiB of
# one token (blanks) is read at once (libconfig's scanner, reading a
# stream, rescanned the token at every 8 KiB it read: half a minute).
{ head -c $((8 << 20)) /dev/zero | tr '\0' ' '; static w; } >"$tmp/d/top.conf"
costs 3 512 "an 8 MiB token is read in linear time" -c "$tmp/d/top.conf" check
expect_status 0 "... and the config is good"

# A NUL byte: libconfig reads a string, which would end there.
{ static w; printf 'x = "a\0b";\n'; } >"$tmp/d/top.conf"
run -c "$tmp/d/top.conf" check
expect_status $EX_CONFIG "a NUL byte: exit 4"
expect_err_match 'top\.conf:2: a NUL byte: not a text file$' "... at file:line"

# Not a regular file: refused with the directive's file and line, without
# opening it (a FIFO would block).
mkfifo "$tmp/d/fifo.conf"
for target in fifo.conf sub /dev/zero; do
	{ static w; echo "@include \"$target\""; } >"$tmp/d/top.conf"
	run -c "$tmp/d/top.conf" check
	expect_status $EX_CONFIG "@include of $target: exit 4"
	expect_err_match "top\\.conf:2: @include \"$target\": cannot read .*: not a regular file\$" \
		"@include of $target: not a regular file, at file:line"
done

# A nested include gets the same checks as the first level.
printf '@include "sub/a.conf"\n' >"$tmp/d/top.conf"
printf '# a\n@include "../big.conf"\n' >"$tmp/d/sub/a.conf"
run -c "$tmp/d/top.conf" check
expect_status $EX_CONFIG "a nested @include of a 1 GB file: exit 4"
expect_err_match 'sub/a\.conf:2: @include "\.\./big\.conf": .*: 1073741824 bytes is larger than' \
	"... named at the including file's line"

# An absolute path is read as written, with the config named with a
# directory or not.
static site >"$tmp/site/site.conf"
printf '@include "%s/site/site.conf"\n' "$tmp" >"$tmp/d/top.conf"
run_in "$tmp" -c d/top.conf resolve
expect_status 0 "an absolute @include, config named d/top.conf"
expect_out '{"cluster":{"site":["site:1"]}}' "... reads the file the path names"
run_in "$tmp/d" -c top.conf resolve
expect_status 0 "an absolute @include, config named top.conf"
run_in "$tmp/site" -c "$tmp/d/top.conf" resolve
expect_status 0 "an absolute @include, config named by its absolute path"

# A relative path is against the directory of the file that holds it:
# d/sub/a.conf's "b.conf" is d/sub/b.conf, not d/b.conf nor ./b.conf.
printf '@include "sub/a.conf"\n' >"$tmp/d/top.conf"
printf '@include "b.conf"\n' >"$tmp/d/sub/a.conf"
static nested >"$tmp/d/sub/b.conf"
static wrong >"$tmp/d/b.conf"
cp "$tmp/d/b.conf" "$tmp/b.conf"
for from in "$tmp" "$tmp/d" "$tmp/d/sub"; do
	run_in "$from" -c "$tmp/d/top.conf" resolve
	expect_out '{"cluster":{"nested":["nested:1"]}}' \
		"a nested relative @include is against its file's directory (from ${from#"$tmp"}/)"
done
run_in "$tmp" -c d/top.conf resolve
expect_out '{"cluster":{"nested":["nested:1"]}}' "... with the config named d/top.conf"

# Errors inside an included file name that file and its own line.
printf 'chain = (\n  { plugin = "static";\n    timeout_ms = "5"; } );\n' >"$tmp/d/sub/b.conf"
run_in "$tmp" -c d/top.conf check
expect_status $EX_CONFIG "a bad value in a nested include: exit 4"
expect_err_match '^muster: d/sub/b\.conf:3: .*timeout_ms' "... names the included file and its line"
printf '# one\n\nchain = ( { plugin = = "static"; } );\n' >"$tmp/d/sub/b.conf"
run_in "$tmp" -c d/top.conf check
expect_err_match '^muster: d/sub/b\.conf:3: syntax error' "a syntax error in a nested include: its file and line"
printf '@include "sub/b.conf"\nchain = (\n  { plugin = = "static"; } );\n' >"$tmp/d/top.conf"
printf '# one\n# two\n' >"$tmp/d/sub/b.conf"
run_in "$tmp" -c d/top.conf check
expect_err_match '^muster: d/top\.conf:3: syntax error' "a syntax error after an include: the including file's line"

# Where libconfig reads no directive, muster reads none either: in a
# comment, in a string that spans lines, after a line's start.
printf '/* a comment\n@include "%s/d/big.conf"\n*/\n%s' "$tmp" "$(static c)" >"$tmp/d/top.conf"
run -c "$tmp/d/top.conf" resolve
expect_status 0 "an @include inside a block comment is no directive"
printf 'chain = ( { plugin = "static"; name = "x\n@include \\"big.conf\\"\n"; config = { jobs = { s = ["s:1"]; }; }; } );\n' \
	>"$tmp/d/top.conf"
run -c "$tmp/d/top.conf" resolve
expect_status 0 "an @include inside a string is no directive"
printf '%s @include "big.conf"\n' "$(static w)" >"$tmp/d/top.conf"
run -c "$tmp/d/top.conf" check
expect_status $EX_CONFIG "an @include after a line's start: exit 4"
expect_err_match 'top\.conf:1: syntax error' "... is libconfig's syntax error"
printf '@include "sub/a.conf" @include "sub/b.conf"\n' >"$tmp/d/top.conf"
run -c "$tmp/d/top.conf" check
expect_status $EX_CONFIG "a second @include after the first on its line: exit 4"
printf '@include "b.conf\n' >"$tmp/d/top.conf"
run -c "$tmp/d/top.conf" check
expect_status $EX_CONFIG "an @include without its closing quote: exit 4"
expect_err_match 'top\.conf:1: @include without its closing quote' "... says so"

# Nesting and fan-out stay bounded.
printf '@include "top.conf"\n' >"$tmp/d/top.conf"
run -c "$tmp/d/top.conf" check
expect_status $EX_CONFIG "a file that includes itself: exit 4"
expect_err_match 'includes nested deeper than 10' "... says how deep"

finish
