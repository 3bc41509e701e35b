// Package scaleup decides one scale-up: which pending pods need new nodes,
// which node group gets how many, and why every other group was not chosen.
// It is pure: it works on a simulator snapshot, the groups' cluster state
// and templates, and `now`, and returns a Plan the loop carries out.
package scaleup
