package offline

import (
	"testing"
)

// TestTwoNodesRemovedInOneTick is issue 12 item 4: two instances that vanish
// in the same tick both lose their nodes, and no NodeRemoved event names an
// empty node.
func TestTwoNodesRemovedInOneTick(t *testing.T) {
	res, _ := runText(t, `apiVersion: kscale.dev/v1alpha1
kind: Scenario
duration: 2m
autoscaler: {scale-down-enabled: false}
nodeGroups:
  - {name: ng, max: 5, resources: {cpu: "4", memory: 16Gi}}
nodes:
  - {group: ng, name: a}
  - {group: ng, name: b}
  - {group: ng, name: c}
events:
  - {at: 30s, removeInstance: {group: ng, name: a, changeTarget: true}}
  - {at: 30s, removeInstance: {group: ng, name: b, changeTarget: true}}
`)
	var removed []string
	for _, e := range res.Events {
		if e.Type != "NodeRemoved" {
			continue
		}
		if len(e.Nodes) == 0 || e.Nodes[0] == "" {
			t.Errorf("%v: NodeRemoved without a node: %v", e.At, e.Nodes)
		}
		removed = append(removed, e.Nodes...)
	}
	if len(removed) != 2 || res.Final.Nodes != 1 {
		t.Fatalf("removed %q, %d nodes left; want a and b removed, 1 node left", removed, res.Final.Nodes)
	}
}

// TestInitialJobCompletes is issue 12 item 3: a Job pod bound at the start
// gets its start time like any other bound pod, completes after its run
// time, and the emptied node is removed.
func TestInitialJobCompletes(t *testing.T) {
	res, scn := runText(t, `apiVersion: kscale.dev/v1alpha1
kind: Scenario
duration: 20m
autoscaler: {scale-down-unneeded-time: 2m, scale-down-delay-after-add: 0s}
nodeGroups:
  - {name: ng, max: 5, resources: {cpu: "4", memory: 16Gi}}
nodes:
  - {group: ng, name: a}
workloads:
  - {name: batch, kind: Job, replicas: 1, scheduled: 1, runTime: 5m, pod: {requests: {cpu: "2", memory: 4Gi}}}
expect:
  - action: {type: DeleteNodes, group: ng, nodes: [a], from: 5m, to: 10m, count: 1}
  - group: {name: ng, target: 0}
`)
	expectChecks(t, res, scn)
}

// TestDaemonSetsReachTheTemplate is issue 12 item 2: the autoscaler sees
// the world's DaemonSets, so a group's template holds their pods, and a
// DaemonSet container with a limit and no request counts its limit (spec
// §2.4). A pod that fits an empty node but not beside the DaemonSet pod
// must not scale the group up.
func TestDaemonSetsReachTheTemplate(t *testing.T) {
	for _, ds := range []string{"requests: {cpu: \"1\"}", "limits: {cpu: \"1\"}"} {
		t.Run(ds, func(t *testing.T) {
			res, scn := runText(t, `apiVersion: kscale.dev/v1alpha1
kind: Scenario
duration: 10m
nodeGroups:
  - {name: ng, max: 5, resources: {cpu: "4", memory: 16Gi}}
workloads:
  - {name: agent, kind: DaemonSet, pod: {`+ds+`}}
  - {name: big, kind: ReplicaSet, replicas: 1, pod: {requests: {cpu: 3500m}}}
expect:
  - action: {type: ScaleUp, count: 0}
  - pendingPods: {count: 1}
  - event: {type: NotTriggerScaleUp, reason: "ng: does not fit the template: NodeResourcesFit: Insufficient cpu", at: 0s, count: 1}
`)
			expectChecks(t, res, scn)
		})
	}
}

// TestRequestsDefaultFromLimits is issue 12 item 2: as the API server
// does, a container with a limit and no request gets request = limit, so
// two pods limited to 3 CPUs do not share a 4-CPU node.
func TestRequestsDefaultFromLimits(t *testing.T) {
	res, scn := runText(t, `apiVersion: kscale.dev/v1alpha1
kind: Scenario
duration: 5m
nodeGroups:
  - {name: ng, max: 5, resources: {cpu: "4", memory: 16Gi}}
nodes:
  - {group: ng, name: a}
workloads:
  - {name: web, kind: ReplicaSet, replicas: 2, pod: {limits: {cpu: "3", memory: 1Gi}}}
expect:
  - action: {type: ScaleUp, group: ng, delta: 1, at: 0s}
  - group: {name: ng, target: 2, ready: 2}
  - pendingPods: {count: 0}
`)
	expectChecks(t, res, scn)
}

// TestRestartKeepsBackoff is issue 12 item 5: a restarted autoscaler
// restores the backoff its predecessor saved, as the live command does from
// its ConfigMap, so the dead group is not asked again.
func TestRestartKeepsBackoff(t *testing.T) {
	for _, infinite := range []string{"true", "false"} {
		t.Run("backoff-no-full-scale-down="+infinite, func(t *testing.T) {
			res, scn := runText(t, `apiVersion: kscale.dev/v1alpha1
kind: Scenario
duration: 30m
autoscaler: {expander: highest-priority, backoff-no-full-scale-down: `+infinite+`, max-node-provision-time: 7m,
  initial-node-group-backoff-duration: 30m, max-node-group-backoff-duration: 1h, scale-down-enabled: false}
nodeGroups:
  - {name: fallback, max: 5, resources: {cpu: "4", memory: 32Gi}, bootTime: 1m}
  - {name: ng-1, max: 5, resources: {cpu: "4", memory: 32Gi}, capacity: 0, labels: {zalando.org/scaling-priority: "100"}}
workloads:
  - {name: p, kind: Pods, replicas: 1, pod: {requests: {cpu: "1", memory: 24Gi}}}
events:
  - {at: 10m, restartAutoscaler: true}
  - {at: 12m, addPods: {workload: p, count: 1}}
expect:
  - action: {type: ScaleUp, group: ng-1, delta: 1, at: 0s}
  - action: {type: ScaleUp, group: fallback, delta: 1, at: 7m10s}
  - group: {name: ng-1, at: 9m50s, backedOff: true}
  - group: {name: ng-1, at: 10m, backedOff: true}
  - action: {type: ScaleUp, group: ng-1, from: 10m, count: 0}
  - action: {type: ScaleUp, group: fallback, delta: 1, at: 12m}
  - group: {name: ng-1, backedOff: true}
  - pendingPods: {count: 0}
`)
			expectChecks(t, res, scn)
		})
	}
}

// TestLostBarePodIsNotRecreated: bare pods (kind Pods) have no controller,
// so a pod lost with its node is gone for good, as docs/scenarios.md
// says; only addPods and scaleWorkload create more.
func TestLostBarePodIsNotRecreated(t *testing.T) {
	res, scn := runText(t, `apiVersion: kscale.dev/v1alpha1
kind: Scenario
duration: 5m
autoscaler: {scale-down-enabled: false}
nodeGroups:
  - {name: ng, max: 5, resources: {cpu: "4", memory: 16Gi}}
nodes:
  - {group: ng, name: a}
  - {group: ng, name: b}
workloads:
  - {name: p, kind: Pods, replicas: 2, scheduled: 2, pod: {requests: {cpu: "3"}}}
events:
  - {at: 1m, removeInstance: {group: ng, name: a, changeTarget: true}}
  - {at: 3m, addPods: {workload: p, count: 1}}
expect:
  - pendingPods: {at: 2m, count: 0}
  - event: {type: PodScheduled, from: 1m, to: 2m50s, count: 0}
  - action: {type: ScaleUp, from: 1m, to: 2m50s, count: 0}
  - action: {type: ScaleUp, group: ng, delta: 1, at: 3m}
`)
	expectChecks(t, res, scn)
}

// TestMinWithoutTarget is issue 19: a group with a min size and no target
// starts at its min size, and a Deployment's pods run like a ReplicaSet's.
func TestMinWithoutTarget(t *testing.T) {
	res, scn := runText(t, `apiVersion: kscale.dev/v1alpha1
kind: Scenario
duration: 3m
nodeGroups:
  - {name: a, min: 2, max: 4, resources: {cpu: "2", memory: 8Gi}}
workloads:
  - {name: web, kind: Deployment, replicas: 2, pod: {requests: {cpu: "1"}}}
expect:
  - group: {name: a, at: 0s, target: 2, registered: 0}
  - group: {name: a, at: 2m, target: 2, registered: 2, ready: 2}
  - pendingPods: {at: 2m, count: 0}
`)
	expectChecks(t, res, scn)
}
