# tests/kubernetes-integration
