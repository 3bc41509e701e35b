package scaledown

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// samePlanWithPodsOn plans again with the pods handed over by node
// (Input.PodsOn) instead of as a list, on a fresh and on a loop-style
// snapshot, which must give the same plan.
func samePlanWithPodsOn(t *testing.T, cfg Config, in Input, want Plan) {
	t.Helper()
	byNode := map[string][]*corev1.Pod{}
	for _, p := range in.Pods {
		byNode[p.Spec.NodeName] = append(byNode[p.Spec.NodeName], p)
	}
	in.Pods, in.PodsOn = nil, func(node string) []*corev1.Pod { return byNode[node] }
	got, err := mustPlanner(t, cfg).Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("plan with the pods by node differs:\n got  %+v\n want %+v", got, want)
	}
	samePlanOnLoopSnapshot(t, cfg, in, want)
	for node, pods := range byNode {
		for _, p := range pods {
			if p.Spec.NodeName != node {
				t.Fatalf("planning changed the lists PodsOn returned: %s/%s under %s", p.Namespace, p.Name, node)
			}
		}
	}
}

func TestInputFromPodsOn(t *testing.T) {
	on := func(string) []*corev1.Pod { return nil }
	in := InputFrom(Observation{Pods: []*corev1.Pod{{}}, PodsOn: on, Now: t0})
	if in.PodsOn == nil || in.Pods != nil {
		t.Fatalf("InputFrom with PodsOn: PodsOn set %v, pods %v; want PodsOn and no list", in.PodsOn != nil, in.Pods)
	}
}
