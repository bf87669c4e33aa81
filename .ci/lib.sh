# shellcheck shell=bash disable=SC2154 # $what is the sourcing script's
# Sourced by the CI scripts that build from a copy of the tree and install
# what they built (.ci/debian.sh, .ci/quickstart.sh).  $what names the
# script's subject in its messages.

# cannot REASON: skip (exit 0), or fail under CI (CI set, as CI services set
# it: CI=true), where what the script checks must be checked.
cannot() {
	case ${CI:-} in
	"" | false | 0) echo "SKIP: $what: $1"; exit 0 ;;
	*) echo "FAIL: $what: $1 (CI=$CI: this must run here)"; exit 1 ;;
	esac
}

# clean_copy TOP DIR: the files of the git checkout TOP (tracked, and
# untracked ones git does not ignore) into DIR, as a fresh clone has them
# plus uncommitted work; no build output.
clean_copy() {
	git -C "$1" rev-parse --git-dir >/dev/null 2>&1 ||
		cannot "not a git checkout (the copy is made of its files)"
	mkdir -p "$2"
	(cd "$1" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 tar -cf - --no-recursion) | tar -xf - -C "$2"
}

# Debian's tools and python3, whatever else is on PATH (pyenv, a venv):
# what a user's Debian machine runs.
debian_path() {
	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
}
