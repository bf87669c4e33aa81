# bench/kubernetes
