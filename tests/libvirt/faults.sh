#!/bin/sh
# libvirt plugin: faults.  A bad URI or an unreachable daemon is unavail
# with libvirt's own message (notfound for the default URI with no daemon,
# so a chain falls back), malformed metadata is unavail naming the domain
# and what is wrong, bad options fail at open with file:line — and libvirt
# and libxml2 never print anything on stderr.
. "$MUSTER_TEST_SRCDIR/tests/libvirt/lib.sh"

# Bad URIs: libvirt's reason, nothing printed by libvirt itself.
c=$(conf nofile "uri = \"test://$tmp/missing.xml\";")
run_muster "$c" resolve
expect_err "test driver, missing file" $EX_UNAVAIL \
	"libvirt(vm): unavail: cannot connect to test://$tmp/missing.xml: XML error: failed to parse xml document '$tmp/missing.xml'"
expect_quiet "missing file: libxml2's I/O warning stays off stderr"
printf '<node><domain type="test"><name>x</name>' >"$tmp/broken.xml"
c=$(conf broken "uri = \"test://$tmp/broken.xml\";")
run_muster "$c" resolve
expect_err "test driver, broken XML" $EX_UNAVAIL "cannot connect to test://$tmp/broken.xml: "
expect_quiet "broken XML: quiet"
c=$(conf bogus "uri = \"bogus+unix:///system?socket=$tmp/none.sock\";")
run_muster "$c" resolve
expect_err "unknown scheme" $EX_UNAVAIL "libvirt(vm): unavail: cannot connect to bogus+unix:///system?socket=$tmp/none.sock: "
expect_quiet "unknown scheme: quiet"
c=$(conf sock "uri = \"qemu+unix:///system?socket=$tmp/none.sock\";")
run_muster "$c" resolve
expect_err "explicit URI, no daemon: unavail" $EX_UNAVAIL \
	"libvirt(vm): unavail: cannot connect to qemu+unix:///system?socket=$tmp/none.sock: Failed to connect socket to '$tmp/none.sock': No such file or directory"
expect_quiet "no daemon: quiet"
# The default URI on a machine without libvirtd: notfound.
if [ ! -S /var/run/libvirt/libvirt-sock-ro ] && [ ! -S /var/run/libvirt/virtqemud-sock-ro ] &&
	[ ! -S /run/libvirt/libvirt-sock-ro ]; then
	c=$(conf default "jobs = { worker = \"*\"; };")
	run_muster "$c" resolve
	expect_err "default URI, no daemon: notfound" $EX_NOTFOUND \
		"libvirt(vm): notfound: no libvirt daemon here (qemu:///system: Failed to connect socket to"
	expect_quiet "default URI: quiet"
else
	skip "default URI, no daemon: notfound" "a libvirt daemon runs here"
fi

# Malformed metadata: unavail naming the domain, the namespace and the fault.
# fixtures/faults.xml holds them all, two lines each; each check gets a node
# with its one domain.
F="test://$fixtures/faults.xml"
meta() { # meta DOMAIN FRAGMENT
	{
		echo '<node>'
		grep -A1 "<name>$1</name>" "$fixtures/faults.xml"
		echo '</node>'
	} >"$tmp/$1.xml"
	c=$(conf "m-$1" "uri = \"test://$tmp/$1.xml\"; jobs = { worker = \"$1\"; };")
	run_muster "$c" resolve
	expect_err "metadata: $1" $EX_UNAVAIL \
		"libvirt(vm): unavail: domain $1: muster metadata (https://muster.dev/xmlns/libvirt/1): $2"
	expect_quiet "metadata: $1: quiet"
}
meta bad-index 'index "two" is not a task index (0 to 2147483647)'
meta bad-port 'port "70000" is not a port (1 to 65535)'
meta bad-nojob '<task> has no job attribute'
meta bad-element 'unknown element <member>; expected <task job="...">'
meta bad-attr '<task> has an unknown attribute "rank" (job, index, port)'
meta bad-child '<task> holds <m:gpu>; only <accelerator kind="GPU" count="N"/> may appear there'
meta bad-count 'accelerator GPU: count "-1" is not a count'
meta bad-kind '<accelerator> has no kind attribute'
meta bad-job "job \"wor ker\" is not a job name (letters, digits, '_', '-', '.')"
# A broken domain is found even when no glob names it (metadata may make
# any domain a member): the error comes first.
c=$(conf m-any "uri = \"$F\"; jobs = { worker = \"nothing\"; };")
run_muster "$c" resolve
expect_err "malformed metadata is never silently ignored" $EX_UNAVAIL \
	": muster metadata (https://muster.dev/xmlns/libvirt/1): "

# Options: errors at open with file:line.
opt() { # opt NAME BODY FRAGMENT [STATUS]
	c=$(conf "o-$1" "$2")
	run_muster "$c" check
	expect_err "option: $1" "${4:-$EX_CONFIG}" "$3"
}
opt uri 'uri = 3;' "o-uri.conf:2: libvirt(vm): uri must be a string, not an integer"
opt jobs 'jobs = "tf-*";' "jobs must be a group of job = \"name glob\" or [\"glob\", ...], not a string"
opt emptyjobs 'jobs = { };' "jobs must name at least one job"
opt glob 'jobs = { worker = [ 1 ]; };' "jobs.worker must be a string, not an integer"
opt sources 'sources = [ "lease", "dhcp" ];' "sources must be one of lease, agent, arp, not \"dhcp\""
opt sources2 'sources = [ "lease", "lease" ];' "sources lists \"lease\" twice"
opt family 'family = "ipv5";' "family must be one of any, ipv4, ipv6, not \"ipv5\""
opt inactive 'inactive = "wait";' "inactive must be one of tryagain, skip, not \"wait\""
opt order 'order = "random";' "order must be one of natural, name, not \"random\""
opt port 'port = 0;' "port must be between 1 and 65535, not 0"
opt vendor 'accelerators = { GPU = [ "nvidia" ]; };' "accelerators.GPU: \"nvidia\" is not a PCI vendor ID such as \"0x10de\""
opt unknown 'uri = "test:///x"; colour = "blue";' "unknown option 'colour' ("
opt typo 'uri = "test:///x"; familly = "ipv4";' "o-typo.conf:2); did you mean 'family'?"

finish
