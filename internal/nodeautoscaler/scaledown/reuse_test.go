package scaledown

import (
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/simulator"
)

func TestHoldsPods(t *testing.T) {
	node := fixture.Node("n", fixture.WithCapacity(corev1.ResourcePods, "500"))
	mk := func(n int) []*corev1.Pod {
		out := make([]*corev1.Pod, n)
		for i := range out {
			out[i] = fixture.Pod(fmt.Sprintf("p%03d", i), fixture.OnNode("n"), fixture.WithRequests("cpu", "1m"))
		}
		return out
	}
	for _, size := range []int{0, 3, smallPodSet + 10} {
		pods := mk(size)
		snap := simulator.NewSnapshot()
		if err := snap.AddNode(node); err != nil {
			t.Fatal(err)
		}
		for _, p := range pods {
			if err := snap.AddPod(p); err != nil {
				t.Fatal(err)
			}
		}
		info, _ := snap.NodeInfo("n")
		reversed := slices.Clone(pods)
		slices.Reverse(reversed)
		other := mk(size)
		tests := []struct {
			name string
			pods []*corev1.Pod
			want bool
		}{
			{"same order", pods, true},
			{"other order", reversed, true},
			{"one pod fewer", pods[:max(0, size-1)], size == 0},
			{"one pod more", append(slices.Clone(pods), mk(1)...), false},
			{"equal but other objects", other, size == 0},
		}
		if size > 1 {
			swapped := slices.Clone(pods)
			swapped[size-1] = other[size-1]
			tests = append(tests, struct {
				name string
				pods []*corev1.Pod
				want bool
			}{"last pod another object", swapped, false})
		}
		for _, tc := range tests {
			if got := holdsPods(info, tc.pods); got != tc.want {
				t.Errorf("%d pods, %s: holdsPods = %v, want %v", size, tc.name, got, tc.want)
			}
		}
	}
}

func TestUtilDetails(t *testing.T) {
	d := utilDetails{}
	want := "utilization 0.73 is above 0.50"
	for range 2 {
		if got := d.of(0.7312, 0.5); got != want {
			t.Errorf("of = %q, want %q", got, want)
		}
	}
	if got := utilDetails(nil).of(0.7312, 0.5); got != want {
		t.Errorf("nil cache: of = %q, want %q", got, want)
	}
	for i := range maxUtilDetails + 5 {
		d.of(float64(i), 0.5)
	}
	if len(d) > maxUtilDetails {
		t.Errorf("cache holds %d texts, more than %d", len(d), maxUtilDetails)
	}
}

// TestBlockedOrder checks that the kept name order gives the list sorting
// gives, as nodes come and go, and that repeated names fall back to sorting.
func TestBlockedOrder(t *testing.T) {
	rounds := [][]string{
		{"c", "a", "b", "e"},
		{"c", "a", "b", "e"},
		{"c", "a", "b", "e", "d"},
		{"a", "d"},
		{"b", "a", "b"},
		{"b", "a", "b"},
		{},
	}
	var o nameOrder
	for r, names := range rounds {
		nodes := make([]Node, len(names))
		states := make([]*nodeState, len(names))
		for i, name := range names {
			nodes[i] = Node{Node: fixture.Node(name), Group: fmt.Sprint(i)}
			states[i] = &nodeState{Node: nodes[i]}
			if i%3 != 1 {
				states[i].block(ReasonHighUtilization, nil, fmt.Sprint(r, i))
			}
		}
		got, want := blockedOf(states, o.of(nodes)), sortBlocked(states)
		if !slices.Equal(got, want) {
			t.Errorf("round %d: blocked %v, want %v", r, got, want)
		}
		if dup := r == 4 || r == 5; (o.of(nodes) == nil) != dup && len(names) > 0 {
			t.Errorf("round %d: order %v with repeated names %v", r, o.of(nodes), dup)
		}
	}
}

// TestRankedSplit checks that ranking the names orders candidates and kept
// nodes as comparing the names does.
func TestRankedSplit(t *testing.T) {
	mk := func() []*nodeState {
		var states []*nodeState
		for i := range 40 {
			s := &nodeState{Node: Node{Node: fixture.Node(fmt.Sprintf("n-%d", (i*17)%40))}, util: float64(i%4) / 4}
			if i%3 == 0 {
				s.movable = []*corev1.Pod{fixture.Pod("p")}
			}
			if i%5 == 0 {
				s.block(ReasonHighUtilization, nil, "")
			}
			states = append(states, s)
		}
		return states
	}
	names := func(states []*nodeState) []string {
		var out []string
		for _, s := range states {
			out = append(out, s.Node.Node.Name)
		}
		return out
	}
	plain := mk()
	wantCands, wantOrder := splitCandidates(plain)
	ranked := mk()
	nodes := make([]Node, len(ranked))
	for i, s := range ranked {
		nodes[i] = s.Node
	}
	var o nameOrder
	rankNames(ranked, o.of(nodes))
	if ranked[0].rank == 0 {
		t.Fatal("no ranks given")
	}
	gotCands, gotOrder := splitCandidates(ranked)
	if !slices.Equal(names(gotCands), names(wantCands)) || !slices.Equal(names(gotOrder), names(wantOrder)) {
		t.Errorf("ranked: candidates %v, order %v; want %v, %v", names(gotCands), names(gotOrder), names(wantCands), names(wantOrder))
	}
}
