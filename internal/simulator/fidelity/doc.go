// Package fidelity is test support that measures how faithfully the
// scheduling simulator (internal/simulator) reproduces kube-scheduler's
// filters. It generates random clusters from a seed (Generate), asks an
// oracle built from kube-scheduler's own framework (hack/fidelity, a
// separate module so that k8s.io/kubernetes never enters this one) which
// nodes each pending pod is feasible on and which plugin rejects the
// others, asks the simulator the same question through
// (*simulator.Snapshot).CheckFit, and reports every pair on which they
// differ, shrunk to a small case (Shrink) and printed as a scenario.
//
// TestFidelity runs a fixed seed set in `make test`; `make fidelity` runs
// as many random seeds as asked and prints pairs compared, disagreements
// and coverage per filter. Answers the simulator gives as "not simulated"
// (simulator.FilterNotSimulated) are counted apart: they are the documented
// features it does not model, and the generator keeps producing them.
package fidelity
