// Package model is the recommender's pure usage model: exponential
// histograms with exponential decay, per-container memory peaks per
// aggregation interval, OOM bumps, aggregate container states keyed per
// (namespace, container name, pod label set), the links between VPAs and
// aggregates, and garbage collection of stale aggregates.
//
// It has no Kubernetes client and reads no clock: every time is a value
// passed in by the caller. It is not safe for concurrent mutation; the
// recommender serialises writes and may read concurrently once a loop's
// samples are in.
package model
