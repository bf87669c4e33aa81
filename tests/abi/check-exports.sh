#!/bin/sh
# check-exports.sh FILE...: each muster plugin FILE must export exactly
# muster_plugin_entry_v1 (its only dynamic, defined symbol apart from
# version nodes).  Prints one line per offending FILE and exits 1 if any;
# exits 2 when a FILE cannot be read.  $NM overrides `nm`.
#
#   FILE exports symbols other than muster_plugin_entry_v1: SYM...
#   FILE does not export muster_plugin_entry_v1

entry=muster_plugin_entry_v1
nm_cmd=${NM:-nm}
status=0

if [ $# -eq 0 ]; then
	echo "usage: $0 PLUGIN.so..." >&2
	exit 2
fi

for file in "$@"; do
	# "ADDRESS TYPE NAME[@VERSION]"; type A is a version node (MUSTER_1.0).
	if ! syms=$($nm_cmd -D --defined-only "$file" 2>&1); then
		echo "$0: cannot read $file: $syms" >&2
		exit 2
	fi
	syms=$(printf '%s\n' "$syms" | awk 'NF >= 3 && $2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u)
	extra=$(printf '%s\n' "$syms" | grep -v -x -e "$entry" -e '' | tr '\n' ' ' | sed 's/ $//')
	if [ -n "$extra" ]; then
		echo "$file exports symbols other than $entry: $extra"
		status=1
	fi
	if ! printf '%s\n' "$syms" | grep -q -x -e "$entry"; then
		echo "$file does not export $entry"
		status=1
	fi
done
exit $status
