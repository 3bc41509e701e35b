// Package dryrun is the node autoscaler's shadow mode (--dry-run): it sits
// at the loop's write boundaries (the cloud provider, the scale-down
// cluster and the event recorder) and records every decision instead of
// carrying it out.
//
// Semantics, named because upstream has no dry run: a write the loop asks
// for is "accepted and forgotten". The wrapper answers as if the cloud or
// the API server had accepted it, so the rest of the loop goes on as it
// would live (a scale-up registers its request and holds scale-down for
// --scale-down-delay-after-add; a drain's evicted pods count as gone; a
// node deletion ends as a success). Nothing is changed, so the next loop
// reads the cluster and the cloud as they really are: a scale-up request
// whose target the cloud does not report closes as fulfilled, and pods
// still pending are decided on again. The running autoscaler's actions
// show up in those reads, which is what the comparison needs.
package dryrun
