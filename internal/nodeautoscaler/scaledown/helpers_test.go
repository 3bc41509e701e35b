package scaledown

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/fixture"
)

var (
	t0     = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	rsKind = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}
)

// world is a small cluster for planner tests.
type world struct {
	nodes  []Node
	pods   []*corev1.Pod
	pdbs   []*policyv1.PodDisruptionBudget
	groups []Group
}

func (w *world) node(name, group string, opts ...fixture.NodeOption) *world {
	w.nodes = append(w.nodes, Node{Node: fixture.Node(name, opts...), Group: group, Instance: "i-" + name, Ready: true})
	found := false
	for i := range w.groups {
		if w.groups[i].ID == group {
			w.groups[i].TargetSize++
			found = true
		}
	}
	if !found && group != "" {
		w.groups = append(w.groups, Group{ID: group, TargetSize: 1})
	}
	return w
}

// pod adds a ReplicaSet pod requesting cpu on node.
func (w *world) pod(name, node, cpu string, opts ...fixture.PodOption) *world {
	base := []fixture.PodOption{fixture.WithRequests("cpu", cpu, "memory", "128Mi"), fixture.OnNode(node),
		fixture.WithOwner(rsKind, "rs-"+name, types.UID("uid-rs-"+name)), fixture.Running()}
	w.pods = append(w.pods, fixture.Pod(name, append(base, opts...)...))
	return w
}

// barePod adds a pod without owner.
func (w *world) barePod(name, node, cpu string, opts ...fixture.PodOption) *world {
	base := []fixture.PodOption{fixture.WithRequests("cpu", cpu, "memory", "128Mi"), fixture.OnNode(node), fixture.Running()}
	w.pods = append(w.pods, fixture.Pod(name, append(base, opts...)...))
	return w
}

func (w *world) input(now time.Time) Input {
	return Input{Nodes: w.nodes, Pods: w.pods, PDBs: w.pdbs, Groups: w.groups, Now: now}
}

func testConfig() Config {
	c := Default()
	c.UnneededTime = 10 * time.Minute
	c.DelayAfterAdd = -time.Second
	return c
}

func mustPlanner(t testing.TB, c Config) *Planner {
	t.Helper()
	p, err := NewPlanner(c)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func names(cs []Candidate) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.Node.Name)
	}
	return out
}

func reasons(bs []Blocked) map[string]Reason {
	out := map[string]Reason{}
	for _, b := range bs {
		out[b.Node] = b.Reason
	}
	return out
}
