// Package testenv runs a real Kubernetes control plane for tests: etcd and
// kube-apiserver always, and kube-scheduler and kube-controller-manager on
// request, all on loopback with free ports and a throw-away PKI. On request
// (Options.Kwok) the real kwok controller (sigs.k8s.io/kwok) plays the
// kubelets of the nodes annotated kwok.x-k8s.io/node=fake, with kscale's
// Stages from deploy/kwok; `make testbin` builds it too (hack/kwok).
//
// The binaries are built from the Go module proxy by `make testbin` (see
// hack/testbin) into a per-user cache keyed by Kubernetes version. When they
// are missing, Start fails the test with the command to run; it never skips.
//
// Every process is started with a parent-death signal, so none outlives the
// test binary even when it is killed, and Stop (registered with t.Cleanup by
// Start) terminates them and removes every file the environment wrote.
package testenv
