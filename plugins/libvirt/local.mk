# plugins/libvirt
