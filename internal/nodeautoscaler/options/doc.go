// Package options defines the node autoscaler's options: one struct, the
// flag names of the upstream Cluster Autoscaler and of Zalando's fork with
// their defaults, Gardener's settings, and validation that names the flag
// of every rejected value.
package options
