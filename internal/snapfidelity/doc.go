// Package snapfidelity is the differential proof of `kscale snapshot`:
// it generates random clusters (seeded; Generate), turns each into the
// Kubernetes objects and cloud groups a live cluster has (Objects), and
// compares the decisions of one live dry-run loop of the node autoscaler
// with those of `kscale simulate` on the snapshot of that cluster
// (Decisions, Diff). A difference is shrunk (Shrink) to a small cluster
// that still shows it. The test on the real control plane lives in this
// package's tests; `make snapshot-fidelity N=...` runs more seeds.
package snapfidelity
