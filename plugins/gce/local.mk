# plugins/gce
