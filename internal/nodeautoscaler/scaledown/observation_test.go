package scaledown

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/fixture"
)

func TestInputFrom(t *testing.T) {
	a := fixture.Node("a", fixture.WithProviderID("mem:///g/i-a"))
	b := fixture.Node("b", fixture.WithProviderID("other:///b"))
	done := fixture.Pod("done", fixture.OnNode("a"), func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded })
	in := InputFrom(Observation{
		Groups: []cloudprovider.NodeGroup{{ID: "g", MinSize: 1, TargetSize: 3}},
		Instances: map[string][]cloudprovider.Instance{"g": {
			{ID: "i-a", ProviderID: "mem:///g/i-a", State: cloudprovider.InstanceRunning},
			{ID: "p-1", Placeholder: true, State: cloudprovider.InstanceCreating},
		}},
		Nodes: []*corev1.Node{a, b},
		Pods:  []*corev1.Pod{fixture.Pod("on-a", fixture.OnNode("a")), fixture.Pod("pending"), done},
		Ready: func(n *corev1.Node) bool { return n.Name == "a" },
		Now:   t0,
	})
	if len(in.Nodes) != 2 || in.Nodes[0].Group != "g" || in.Nodes[0].Instance != "i-a" || !in.Nodes[0].Ready {
		t.Fatalf("node a = %+v", in.Nodes[0])
	}
	if in.Nodes[1].Group != "" || in.Nodes[1].Ready {
		t.Fatalf("node b = %+v", in.Nodes[1])
	}
	if len(in.Pods) != 1 || in.Pods[0].Name != "on-a" {
		t.Fatalf("pods = %v", in.Pods)
	}
	if len(in.Groups) != 1 || in.Groups[0] != (Group{ID: "g", MinSize: 1, TargetSize: 3}) {
		t.Fatalf("groups = %+v", in.Groups)
	}
}

func TestInputFromPodsOfUnknownNodesAreIgnored(t *testing.T) {
	node := func(name string) *corev1.Node {
		return fixture.Node(name, fixture.WithProviderID("mem:///g/i-"+name))
	}
	in := InputFrom(Observation{
		Groups: []cloudprovider.NodeGroup{{ID: "g", TargetSize: 2}},
		Instances: map[string][]cloudprovider.Instance{"g": {
			{ID: "i-a", ProviderID: "mem:///g/i-a", State: cloudprovider.InstanceRunning},
			{ID: "i-b", ProviderID: "mem:///g/i-b", State: cloudprovider.InstanceRunning},
		}},
		Nodes: []*corev1.Node{node("a"), node("b")},
		// A bare pod blocks its node; on a node the cluster no longer has
		// it must not count anywhere.
		Pods: []*corev1.Pod{fixture.Pod("bare", fixture.OnNode("gone"), fixture.Running())},
		Now:  t0,
	})
	cfg := testConfig()
	cfg.UnneededTime = 0
	plan, err := mustPlanner(t, cfg).Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(plan.Unneeded); len(got) != 2 || len(plan.Blocked) != 0 {
		t.Fatalf("unneeded %v, blocked %v; want both nodes unneeded", got, plan.Blocked)
	}
}
