# plugins/kubernetes
