// Package provider serves the per-pod kube-apiserver request rate through
// the custom metrics API (custom.metrics.k8s.io v1beta2 and v1beta1) on top
// of sigs.k8s.io/custom-metrics-apiserver. Pods without a fresh rate are
// absent from lists and answer 404 by name; unknown metrics answer 404.
package provider
