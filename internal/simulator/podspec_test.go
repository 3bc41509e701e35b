package simulator

import (
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/fixture"
)

// TestBoundSpecSharing checks that AddPod shares a parsed spec only
// between plain pods whose parsed fields are equal, and that the shared
// spec is exactly what the pod's own parse gives.
func TestBoundSpecSharing(t *testing.T) {
	base := func(name string, opts ...fixture.PodOption) *corev1.Pod {
		return fixture.Pod(name, append([]fixture.PodOption{fixture.OnNode("n1"), fixture.WithLabels(map[string]string{"app": "a"})}, opts...)...)
	}
	tol := corev1.Toleration{Key: "k", Operator: corev1.TolerationOpExists}
	cases := []struct {
		name  string
		pod   *corev1.Pod
		share bool
	}{
		{"equal", base("p"), true},
		{"other name and annotations", base("p", fixture.WithAnnotations(map[string]string{"x": "y"})), true},
		{"labels", base("p", fixture.WithLabels(map[string]string{"app": "b"})), false},
		{"namespace", base("p", fixture.InNamespace("other")), false},
		{"requests", base("p", fixture.WithRequests("cpu", "101m", "memory", "128Mi")), false},
		{"equal requests written otherwise", base("p", fixture.WithRequests("cpu", "0.1", "memory", "128Mi")), true},
		{"priority", base("p", fixture.WithPriority(5)), false},
		{"tolerations", base("p", fixture.WithTolerations(tol)), false},
		{"node selector", base("p", fixture.WithNodeSelector(map[string]string{"z": "1"})), false},
		{"host port", base("p", fixture.WithHostPort(80, corev1.ProtocolTCP)), false},
		{"second container", base("p", fixture.WithContainer("c2", "cpu", "1")), false},
		{"init container", base("p", fixture.WithInitContainer("i", false, "cpu", "1")), false},
		{"affinity", base("p", fixture.WithAffinity(&corev1.Affinity{})), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewSnapshot()
			mustAddNode(t, s, fixture.Node("n1"))
			first := base("first")
			mustAddPod(t, s, first)
			mustAddPod(t, s, c.pod)
			n := s.byName["n1"]
			shared := n.pods[0].spec == n.pods[1].spec
			if shared != c.share {
				t.Fatalf("shared = %v, want %v", shared, c.share)
			}
			own := newPodSpec(c.pod, c.pod.CreationTimestamp.Time)
			got := n.pods[1].spec
			if got.requests.MilliCPU != own.requests.MilliCPU || got.requests.Memory != own.requests.Memory ||
				got.requests.Pods != own.requests.Pods || got.priority != own.priority || len(got.ports) != len(own.ports) {
				t.Fatalf("spec %+v differs from the pod's own parse %+v", got.requests, own.requests)
			}
			var want int64
			for _, e := range n.pods {
				r := newPodSpec(e.pod, e.pod.CreationTimestamp.Time).requests
				want += r.MilliCPU
			}
			if n.requested.MilliCPU != want {
				t.Fatalf("node requests %dm cpu, want %dm", n.requested.MilliCPU, want)
			}
		})
	}
}

// TestGroupingWithRemovedSpecs checks that grouping the pods of removed
// nodes with their snapshot specs as hints gives exactly the groups that
// comparing the pods field by field gives.
func TestGroupingWithRemovedSpecs(t *testing.T) {
	s := NewSnapshot()
	var pods []*corev1.Pod
	owner := fixture.WithOwner(corev1.SchemeGroupVersion.WithKind("ReplicationController"), "rc", "uid-rc")
	variants := []func(i int) []fixture.PodOption{
		func(int) []fixture.PodOption { return nil },
		func(int) []fixture.PodOption {
			return []fixture.PodOption{fixture.WithLabels(map[string]string{"app": "b"})}
		},
		func(int) []fixture.PodOption { return []fixture.PodOption{owner} },
		func(i int) []fixture.PodOption {
			return []fixture.PodOption{fixture.WithAnnotations(map[string]string{SpreadTimeoutAnnotation: []string{"1m", "2m"}[i%2]})}
		},
		func(int) []fixture.PodOption {
			return []fixture.PodOption{fixture.WithHostPort(80, corev1.ProtocolTCP)}
		},
		func(i int) []fixture.PodOption {
			return []fixture.PodOption{fixture.WithRequests("cpu", []string{"100m", "200m"}[i%2], "memory", "128Mi")}
		},
	}
	for n := range 4 {
		node := fixture.Node(fmt.Sprintf("n%d", n))
		mustAddNode(t, s, node)
		for i := range 40 {
			v := variants[(i/3)%len(variants)](i)
			p := fixture.Pod(fmt.Sprintf("p-%d-%d", n, i), append(v, fixture.OnNode(node.Name), fixture.WithLabels(map[string]string{"app": "a"}))...)
			if i%7 == 0 {
				p.Labels = map[string]string{"app": "b"}
			}
			mustAddPod(t, s, p)
			pods = append(pods, p)
		}
	}
	s.Fork()
	for n := range 4 {
		if err := s.RemoveNode(fmt.Sprintf("n%d", n)); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	hints := s.removedSpecs(len(pods))
	if len(hints) != len(pods) {
		t.Fatalf("%d hints for %d removed pods", len(hints), len(pods))
	}
	shared := 0
	for i := 1; i < len(pods); i++ {
		if hints[pods[i]] == hints[pods[i-1]] {
			shared++
		}
	}
	if shared == 0 {
		t.Fatal("no consecutive pods share a spec: the hints are not exercised")
	}
	for _, unbound := range []bool{false, true} {
		want := buildGroups(pods, now, unbound, nil)
		got := buildGroups(pods, now, unbound, hints)
		if len(got) != len(want) {
			t.Fatalf("unbound=%v: %d groups, want %d", unbound, len(got), len(want))
		}
		for i := range want {
			if got[i].spec.pod != want[i].spec.pod || !slices.Equal(got[i].pods, want[i].pods) {
				t.Fatalf("unbound=%v: group %d holds %v, want %v", unbound, i, names(got[i].pods), names(want[i].pods))
			}
		}
	}
	s.Revert()
}
