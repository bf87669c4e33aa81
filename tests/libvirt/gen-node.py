#!/usr/bin/env python3
"""Writes a libvirt test-driver node XML with N running domains for the
libvirt plugin's scale test and benchmark.

    gen-node.py N OUT [--shutoff NAME] [--prefix tf-worker-]

Domain i is PREFIXi, running (ids 1..N in file order), with one interface on
network "train" (DHCP range 10.40.0.10-10.40.255.250; the test driver gives
domain id k the lease address 10.40.0.10 + (k - 1) * 20 + 1) and, on every
fourth domain, a passed-through NVIDIA A100 (a node device the file
defines).  --shutoff NAME makes that one domain shut off.
"""
import sys


def main():
    args = sys.argv[1:]
    shutoff = None
    prefix = "tf-worker-"
    if "--shutoff" in args:
        i = args.index("--shutoff")
        shutoff = args[i + 1]
        del args[i:i + 2]
    if "--prefix" in args:
        i = args.index("--prefix")
        prefix = args[i + 1]
        del args[i:i + 2]
    n, out = int(args[0]), args[1]
    if n > 3000:
        sys.exit("at most 3000 domains fit the DHCP range")
    parts = ['<node xmlns:test="http://libvirt.org/schemas/domain/test/1.0">',
             '<network><name>train</name><bridge name="virbr40"/>'
             '<ip address="10.40.0.1" netmask="255.255.0.0"><dhcp>'
             '<range start="10.40.0.10" end="10.40.255.250"/></dhcp></ip></network>',
             '<device><name>pci_0000_3b_00_0</name><parent>computer</parent>'
             '<capability type="pci"><class>0x030200</class><domain>0</domain><bus>59</bus>'
             '<slot>0</slot><function>0</function><product id="0x20b0">GA100</product>'
             '<vendor id="0x10de">NVIDIA Corporation</vendor></capability></device>']
    for i in range(n):
        name = "%s%d" % (prefix, i)
        gpu = ('<hostdev mode="subsystem" type="pci" managed="yes"><source>'
               '<address domain="0x0000" bus="0x3b" slot="0x00" function="0x0"/>'
               '</source></hostdev>') if i % 4 == 0 else ""
        state = "<test:runstate>5</test:runstate>" if name == shutoff else ""
        parts.append(
            '<domain type="test"><name>%s</name>'
            '<uuid>7d000000-0000-4000-8000-%012x</uuid><memory>1048576</memory>'
            '<os><type>hvm</type></os>%s<devices><interface type="network">'
            '<mac address="52:54:00:%02x:%02x:%02x"/><source network="train"/></interface>'
            '%s</devices></domain>' % (name, i, state, (i >> 16) & 255, (i >> 8) & 255,
                                       i & 255, gpu))
    parts.append("</node>")
    with open(out, "w") as f:
        f.write("\n".join(parts) + "\n")


if __name__ == "__main__":
    main()
