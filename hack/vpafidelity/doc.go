// Package vpafidelity compares kscale's vertical pod autoscaler with
// upstream VPA's own code (k8s.io/autoscaler/vertical-pod-autoscaler at the
// version the main module pins) on seeded random inputs, and shrinks every
// disagreement to a small reproducer. See docs/vpa.md, "The VPA oracle".
package vpafidelity
