package fidelity

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/simulator/conformance"
)

// TestOracleConformance runs the conformance cases (which
// TestSchedulerConformance answers with a real kube-scheduler process)
// through the oracle: it must find exactly the case's node feasible, so
// the oracle is checked against the real scheduler, and the simulator must
// name the same plugin as the oracle on every node.
func TestOracleConformance(t *testing.T) {
	o := StartOracle(t, 1)
	for _, cc := range conformance.Cases() {
		t.Run(cc.Name, func(t *testing.T) {
			c := fromConformance(&cc)
			resp, err := o.Evaluate(c.Request())
			if err != nil {
				t.Fatal(err)
			}
			var feasible []string
			for j, p := range resp.Results[0].Plugins {
				if p == "" {
					feasible = append(feasible, c.Nodes[j].Name)
				}
			}
			if want := cc.Want; len(feasible) != min(len(want), 1) || len(feasible) == 1 && feasible[0] != want {
				t.Fatalf("oracle finds %v feasible, kube-scheduler chose %q", feasible, want)
			}
			sim, err := c.Simulate()
			if err != nil {
				t.Fatal(err)
			}
			ds, err := Compare(c, resp, sim, NewTally())
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range ds {
				t.Errorf("%s", d.String())
			}
		})
	}
}

// fromConformance turns a conformance case into a cluster as the API
// server holds it: pods with UIDs, the default namespace, and the
// metadata.name label on every namespace.
func fromConformance(cc *conformance.Case) *Cluster {
	c := &Cluster{Nodes: cc.Nodes, Pods: cc.Existing, PersistentVolumes: cc.PersistentVolumes,
		PersistentVolumeClaims: cc.PersistentVolumeClaims, Pending: []*corev1.Pod{cc.Pod}}
	names := map[string]bool{}
	for _, ns := range append([]*corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: fixture.DefaultNamespace}}}, cc.Namespaces...) {
		if names[ns.Name] {
			continue
		}
		names[ns.Name] = true
		ns = ns.DeepCopy()
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		ns.Labels[corev1.LabelMetadataName] = ns.Name
		c.Namespaces = append(c.Namespaces, ns)
	}
	c = c.Clone()
	for _, p := range append(c.Pods, c.Pending...) {
		if p.UID == "" {
			p.UID = types.UID(p.Namespace + "/" + p.Name)
		}
	}
	return c
}
