//go:build tools

// Package testbin pins the Kubernetes control-plane and etcd versions that the
// kscale integration tests run against. It is a separate module so that the
// main module never depends on k8s.io/kubernetes.
package testbin

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
