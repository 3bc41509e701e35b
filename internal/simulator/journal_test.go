package simulator

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/fixture"
)

// dump renders everything the snapshot holds, including its indexes, in a
// canonical form.
func dump(s *Snapshot) string {
	var b strings.Builder
	fmt.Fprintf(&b, "pods=%d anti=%d\n", s.PodCount(), s.antiPods)
	for _, n := range s.nodes {
		fmt.Fprintf(&b, "%s req=%+v ports=%d:", n.node.Name, n.requested, len(n.ports))
		for _, e := range n.pods {
			b.WriteString(" " + e.pod.Name)
		}
		b.WriteString("\n")
	}
	if s.idx != nil {
		var lines []string
		for kv, set := range s.idx.byLabel {
			for e := range set {
				lines = append(lines, fmt.Sprintf("label %s=%s %s", kv.key, kv.value, e.pod.Name))
			}
		}
		for kv, set := range s.idx.antiByLabel {
			for ref := range set {
				lines = append(lines, fmt.Sprintf("anti %s=%s %s/%d", kv.key, kv.value, ref.e.pod.Name, ref.term))
			}
		}
		slices.Sort(lines)
		b.WriteString(strings.Join(lines, "\n"))
	}
	return b.String()
}

// TestRevertRestoresEverything applies random changes and simulations
// inside forks (fixed seed) and checks that Revert restores the exact
// state, indexes included, and that Commit keeps it.
func TestRevertRestoresEverything(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	s := NewSnapshot()
	for i := range 6 {
		mustAddNode(t, s, fixture.Node(fmt.Sprintf("n%d", i), fixture.WithZone([]string{"a", "b", "c"}[i%3])))
	}
	seq := 0
	randomPod := func(node string) *corev1.Pod {
		seq++
		app := fmt.Sprintf("app-%d", rng.IntN(3))
		opts := []fixture.PodOption{fixture.WithLabels(map[string]string{"app": app}), fixture.WithRequests("cpu", fmt.Sprintf("%dm", 100+rng.IntN(900)))}
		switch rng.IntN(4) {
		case 0:
			opts = append(opts, antiAffinity(corev1.LabelHostname, app))
		case 1:
			opts = append(opts, zonalSpread(app))
		case 2:
			opts = append(opts, fixture.WithHostPort(int32(8000+rng.IntN(3)), corev1.ProtocolTCP))
		}
		if node != "" {
			opts = append(opts, fixture.OnNode(node))
		}
		return fixture.Pod(fmt.Sprintf("p%d", seq), opts...)
	}
	_ = s.CheckFit(fixture.Pod("probe", zonalSpread("app-0")), "n0") // builds the indexes so they are checked too
	if s.idx == nil {
		t.Fatal("indexes not built")
	}
	for round := range 30 {
		before := dump(s)
		s.Fork()
		for range 10 {
			switch rng.IntN(6) {
			case 0:
				_ = s.AddPod(randomPod(fmt.Sprintf("n%d", rng.IntN(6))))
			case 1:
				if n := s.nodes[rng.IntN(len(s.nodes))]; len(n.pods) > 0 {
					e := n.pods[rng.IntN(len(n.pods))]
					if err := s.RemovePod(e.pod.Namespace, e.pod.Name); err != nil {
						t.Fatal(err)
					}
				}
			case 2:
				if len(s.nodes) > 3 {
					if err := s.RemoveNode(s.nodes[rng.IntN(len(s.nodes))].node.Name); err != nil {
						t.Fatal(err)
					}
				}
			case 3:
				FilterSchedulable(s, []*corev1.Pod{randomPod(""), randomPod(""), randomPod("")}, FilterOptions{})
			case 4:
				Estimate(s, EstimateInput{Template: fixture.Node("t", fixture.WithZone("a")), Pods: []*corev1.Pod{randomPod(""), randomPod("")}})
			default:
				mustAddNode(t, s, fixture.Node(fmt.Sprintf("extra-%d-%d", round, rng.IntN(1000)), fixture.WithZone("b")))
			}
		}
		if round%3 == 0 {
			s.Commit()
			continue
		}
		s.Revert()
		if after := dump(s); after != before {
			t.Fatalf("round %d: revert did not restore the snapshot\nbefore:\n%s\nafter:\n%s", round, before, after)
		}
	}
}
