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
