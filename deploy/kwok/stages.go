// Package kwokstages ships kscale's Stage resources for the real kwok
// controller (sigs.k8s.io/kwok): what a kubelet does for the kwok provider's
// nodes and their pods. internal/testenv hands them to the kwok it starts;
// the kwok quick start in docs/node-autoscaler-live.md passes the file to
// kwok with --config.
package kwokstages

import _ "embed"

// Stages is stages.yaml: node Ready and heartbeats, pods Running after
// kwok.kscale.dev/start-time, pods succeeding after kwok.kscale.dev/run-time,
// graceful deletions confirmed.
//
//go:embed stages.yaml
var Stages []byte

// NodeAnnotation and NodeAnnotationValue mark the nodes kwok plays the
// kubelet of: kwok's own convention (kwokctl clusters select the same), run
// kwok with --manage-nodes-with-annotation-selector=NodeSelector.
const (
	NodeAnnotation      = "kwok.x-k8s.io/node"
	NodeAnnotationValue = "fake"
	NodeSelector        = NodeAnnotation + "=" + NodeAnnotationValue
)

// Pod annotations the Stages read to shape a pod's life.
const (
	// AnnotationStartTime is how long after kwok sees a bound pod it becomes
	// Running and Ready (a Go duration; at once without it).
	AnnotationStartTime = "kwok.kscale.dev/start-time"
	// AnnotationRunTime is how long a pod runs before it succeeds (a Go
	// duration); without it the pod runs until deleted.
	AnnotationRunTime = "kwok.kscale.dev/run-time"
)
