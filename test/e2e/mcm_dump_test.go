package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kscale/kscale/internal/cloudprovider/mcm"
	"github.com/kscale/kscale/internal/fixture"
)

// dumpOnFailure logs, when t has failed, the world's state a reader needs
// to tell which side stalled: every MachineDeployment's replicas, every
// Machine's phase and last operation, every Node and every pod of app.
func (w *mcmWorld) dumpOnFailure(t *testing.T, app string) {
	t.Helper()
	t.Cleanup(func() {
		if t.Failed() {
			t.Log("state at the failure:\n" + w.state(context.WithoutCancel(t.Context()), app))
		}
	})
}

func (w *mcmWorld) state(ctx context.Context, app string) string {
	var b strings.Builder
	if mds, err := w.dyn.Resource(mcm.MachineDeployments).Namespace(mcmNamespace).List(ctx, metav1.ListOptions{}); err == nil {
		for _, md := range mds.Items {
			spec, _, _ := unstructured.NestedInt64(md.Object, "spec", "replicas")
			ready, _, _ := unstructured.NestedInt64(md.Object, "status", "readyReplicas")
			fmt.Fprintf(&b, "machinedeployment %s replicas %d ready %d\n", md.GetName(), spec, ready)
		}
	}
	if sets, err := w.dyn.Resource(mcm.MachineSets).Namespace(mcmNamespace).List(ctx, metav1.ListOptions{}); err == nil {
		for _, ms := range sets.Items {
			spec, _, _ := unstructured.NestedInt64(ms.Object, "spec", "replicas")
			have, _, _ := unstructured.NestedInt64(ms.Object, "status", "replicas")
			fmt.Fprintf(&b, "machineset %s replicas %d status.replicas %d labels %v\n", ms.GetName(), spec, have, ms.GetLabels())
		}
	}
	if ms, err := w.dyn.Resource(mcm.Machines).Namespace(mcmNamespace).List(ctx, metav1.ListOptions{}); err == nil {
		for _, m := range ms.Items {
			phase, _, _ := unstructured.NestedString(m.Object, "status", "currentStatus", "phase")
			op, _, _ := unstructured.NestedString(m.Object, "status", "lastOperation", "description")
			node := m.GetLabels()["node"]
			fmt.Fprintf(&b, "machine %s phase %q node %q deleting %v created %s: %s\n", m.GetName(), phase, node,
				m.GetDeletionTimestamp() != nil, m.GetCreationTimestamp().Format("15:04:05"), op)
		}
	}
	if nodes, err := w.workload.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{}); err == nil {
		for _, n := range nodes.Items {
			fmt.Fprintf(&b, "node %s unschedulable %v taints %v created %s\n", n.Name, n.Spec.Unschedulable, n.Spec.Taints,
				n.CreationTimestamp.Format("15:04:05"))
		}
	}
	if pods, err := w.workload.Client.CoreV1().Pods(fixture.DefaultNamespace).List(ctx, metav1.ListOptions{LabelSelector: "app=" + app}); err == nil {
		for _, p := range pods.Items {
			fmt.Fprintf(&b, "pod %s phase %s node %q\n", p.Name, p.Status.Phase, p.Spec.NodeName)
		}
	}
	return b.String()
}
