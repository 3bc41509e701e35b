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
