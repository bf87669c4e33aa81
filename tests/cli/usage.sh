#!/bin/sh
# muster's command line: help, version, and usage errors (exit 64), which
# are detected before the configuration is read.
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"

static=$here/static.conf
missing=$tmp/no-such.conf # a usage error wins over a missing config

run --help
expect_status 0 "--help"
expect_out_match '^Usage: muster \[-c FILE\] \[-v\] COMMAND' "--help prints the synopsis"
expect_out_match '^  64 ' "--help documents exit status 64"
for cmd in resolve master accelerators tf-config plugins check; do
	expect_out_match "^  $cmd" "--help lists $cmd"
done
expect_empty_err "--help prints nothing on stderr"

run -h
expect_status 0 "-h"

run --version
expect_status 0 "--version"
expect_out_match '^muster [0-9]+\.[0-9]+\.[0-9]+ \(libmuster [0-9]+\.[0-9]+\.[0-9]+\)$' \
	"--version prints the program's and the library's versions"

for cmd in resolve master accelerators tf-config plugins check; do
	run -c "$missing" "$cmd" --help
	expect_status 0 "$cmd --help"
	expect_out_match "^Usage: muster \[-c FILE\] \[-v\] $cmd" "$cmd --help prints its synopsis"
done

# usage_error DESCRIPTION REGEX ARGS...: exit 64, REGEX on stderr, nothing
# on stdout.
usage_error() {
	desc=$1
	regex=$2
	shift 2
	run "$@"
	expect_status 64 "$desc"
	expect_err_match "^muster: $regex" "$desc: says why"
	if [ -s "$tmp/out" ]; then
		fail "$desc: nothing on stdout"
	else
		pass "$desc: nothing on stdout"
	fi
}

usage_error "no command" "no command given"
usage_error "only options" "no command given" -c "$static" -v
usage_error "unknown command" "unknown command 'resolv'" -c "$missing" resolv
usage_error "unknown long option" "unrecognized option '--bogus'" --bogus resolve
usage_error "unknown short option" "invalid option -- 'x'" -x resolve
usage_error "-c without its argument" "option requires an argument -- 'c'" -c
usage_error "--config without its argument" "option '--config' requires an argument" --config
usage_error "empty config name" "-c/--config: the file name is empty" -c "" resolve
usage_error "global option after the command" "resolve: invalid option -- 'v'" \
	-c "$missing" resolve -v
usage_error "unknown format" "resolve: unknown format 'yaml'" -c "$missing" resolve --format yaml
for cmd in status topo doctor; do
	usage_error "$cmd: unknown format" "$cmd: unknown format 'yaml' \(table or json\)" \
		-c "$missing" $cmd --format yaml
done
usage_error "--format without its argument" "resolve: option '--format' requires an argument" \
	-c "$missing" resolve --format
usage_error "operand after resolve" "resolve: unexpected argument 'now'" -c "$missing" resolve now
usage_error "operand after check" "check: unexpected argument 'x'" -c "$missing" check x
usage_error "operand after plugins" "plugins: unexpected argument 'x'" -c "$missing" plugins x
usage_error "tf-config without --task" "tf-config: --task TYPE:ID is required" \
	-c "$missing" tf-config
usage_error "--sparse is tf-config's only" "master: unrecognized option '--sparse'" \
	-c "$missing" master --sparse
usage_error "--rpc-layer=x on accelerators" "accelerators: unrecognized option '--rpc-layer=x'" \
	-c "$missing" accelerators --rpc-layer=x
usage_error "--sparse=yes takes no value" "tf-config: unrecognized option '--sparse=yes'" \
	-c "$missing" tf-config --task worker:0 --sparse=yes

# TYPE:ID, strictly.
for bad in worker worker: :0 worker:-1 worker:+1 worker:1x 'worker: 1' 'worker:1 ' \
	worker:0x10 worker:1.0 worker:99999999999999999999999999; do
	re=$(printf '%s\n' "$bad" | sed 's/[].[*^$+?(){}|\\]/\\&/g')
	usage_error "bad task '$bad' (master)" "bad task '$re'" -c "$missing" master --task "$bad"
done
usage_error "bad task (accelerators)" "bad task 'worker'" -c "$missing" accelerators --task worker
usage_error "bad task (tf-config)" "bad task ':3'" -c "$missing" tf-config --task :3

# What is well-formed gets past the command line (and then fails on the
# missing file with the config status, 4).
for good in worker:0 worker:007 ps:12 a:b:3; do
	run -c "$missing" master --task "$good"
	expect_status 4 "task '$good' is well-formed"
done
run -c "$missing" master --task=worker:1 --rpc-layer=
expect_status 4 "--task=TYPE:ID and an empty --rpc-layer= are accepted"
run --config="$missing" --verbose -vv resolve --format=text
expect_status 4 "long options with '=' and repeated -v are accepted"

finish
