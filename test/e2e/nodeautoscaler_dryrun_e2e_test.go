package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/cloudprovider/clusterapi/clusterapitest"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
	"github.com/kscale/kscale/internal/testenv"
)

// shadowAccount is the ServiceAccount of deploy/node-autoscaler-shadow.
const shadowAccount = "kscale-node-autoscaler-shadow"

// capiShadowRBAC is the shadow overlay's read-only RBAC.
var capiShadowRBAC = capiRBAC{overlay: "../../deploy/node-autoscaler-shadow", account: shadowAccount,
	workload: []string{"serviceaccount.yaml", "rbac.yaml"}, management: []string{"serviceaccount.yaml", "rbac-clusterapi-management.yaml"}}

// auditPolicy logs every request with its metadata, and the bodies of
// ConfigMap and Lease requests (so a create names its object).
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Request
    resources:
      - group: ""
        resources: ["configmaps"]
      - group: coordination.k8s.io
        resources: ["leases"]
  - level: Metadata
`

// auditFlags enable the audit log of a kube-apiserver into dir/name.
func auditFlags(t *testing.T, dir, name string) (flags []string, logPath string) {
	t.Helper()
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath = filepath.Join(dir, name)
	return []string{"--audit-policy-file=" + policy, "--audit-log-path=" + logPath, "--audit-log-format=json"}, logPath
}

// auditOf reads the audit log at path and returns user's requests: the
// reads counted, the writes listed.
func auditOf(t *testing.T, path, user string) (reads int, writes []auditEvent) {
	t.Helper()
	readAudit(t, path, func(e auditEvent) {
		switch {
		case e.User.Username != user:
		case e.Verb == "get" || e.Verb == "list" || e.Verb == "watch":
			reads++
		default:
			writes = append(writes, e)
		}
	})
	return reads, writes
}

// ownObject reports whether a write touches the dry run's own status
// ConfigMap or Lease in kube-system.
func ownObject(e auditEvent) bool {
	if e.ObjectRef == nil || e.ObjectRef.Namespace != "kube-system" || e.ObjectRef.Subresource != "" {
		return false
	}
	name := e.ObjectRef.Name
	if name == "" && e.RequestObject != nil {
		name = e.RequestObject.Metadata.Name
	}
	switch {
	case e.ObjectRef.APIGroup == "" && e.ObjectRef.Resource == "configmaps":
		return name == live.ShadowStatusName
	case e.ObjectRef.APIGroup == "coordination.k8s.io" && e.ObjectRef.Resource == "leases":
		return name == live.ShadowLeaseName
	}
	return false
}

// shadowMetric returns the value of the first series of /metrics whose
// line starts with prefix, or 0.
func shadowMetric(ctx context.Context, addr, prefix string) float64 {
	body, ok := naTryGet(ctx, "http://"+addr+"/metrics")
	if !ok {
		return 0
	}
	for _, line := range strings.Split(body, "\n") {
		if rest, found := strings.CutPrefix(line, prefix); found {
			var v float64
			if _, err := fmt.Sscan(strings.TrimSpace(rest[strings.LastIndex(rest, " "):]), &v); err == nil {
				return v
			}
		}
	}
	return 0
}

// upstreamStatus is a cluster-autoscaler-status as upstream writes it
// (CORE pkg/clusterstate/api/types.go field names).
const upstreamStatus = `time: 2026-11-27 12:00:00.000000000 +0000 UTC
autoscalerStatus: Running
clusterWide:
  health:
    status: Healthy
    nodeCounts:
      registered: {total: 1, ready: 1, notStarted: 0, unready: {total: 0, resourceUnready: 0}}
      longUnregistered: 0
      unregistered: 0
  scaleUp:
    status: NoActivity
  scaleDown:
    status: NoCandidates
nodeGroups: []
`

// playUpstream writes what upstream Cluster Autoscaler writes for a
// decision: an event from its source on the object, as its recorder does.
func playUpstream(t *testing.T, env *testenv.Env, obj corev1.ObjectReference, reason, message string) {
	t.Helper()
	now := metav1.NewTime(time.Now())
	ns := obj.Namespace
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	e := &corev1.Event{ObjectMeta: metav1.ObjectMeta{GenerateName: "upstream-", Namespace: ns}, InvolvedObject: obj,
		Reason: reason, Message: message, Type: corev1.EventTypeNormal, Source: corev1.EventSource{Component: "cluster-autoscaler"},
		FirstTimestamp: now, LastTimestamp: now, Count: 1}
	if _, err := env.Client.CoreV1().Events(ns).Create(t.Context(), e, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// pendingPods returns the pods of app not bound to a node.
func pendingPods(t *testing.T, env *testenv.Env, app string) []corev1.Pod {
	t.Helper()
	pods, err := env.Client.CoreV1().Pods(fixture.DefaultNamespace).List(t.Context(), metav1.ListOptions{LabelSelector: "app=" + app})
	if err != nil {
		t.Fatal(err)
	}
	var out []corev1.Pod
	for _, p := range pods.Items {
		if p.Spec.NodeName == "" {
			out = append(out, p)
		}
	}
	return out
}

// TestNodeAutoscalerDryRunWritesNothing runs `kscale node-autoscaler
// --dry-run --cloud-provider=clusterapi` under the shadow overlay's
// read-only RBAC through a scale-up and a scale-down situation, with the
// test playing the running upstream autoscaler (its events, its status
// ConfigMap and its target size changes). kscale's decisions are compared
// with upstream's, and `kscale shadow report` renders the record. Last it
// reads both API servers' audit logs: kscale's ServiceAccount made no
// write but to its own status ConfigMap and Lease.
func TestNodeAutoscalerDryRunWritesNothing(t *testing.T) {
	dir := t.TempDir()
	wFlags, wLog := auditFlags(t, dir, "workload-audit.log")
	mFlags, mLog := auditFlags(t, dir, "management-audit.log")
	w, workloadKubeconfig, managementKubeconfig := capiSetupWith(t, capiShadowRBAC, wFlags, mFlags)
	env := w.workload
	addr := naFreeAddress(t)
	upstreamCM := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: live.StatusConfigMapName, Namespace: "kube-system",
		Annotations: map[string]string{live.LastUpdatedAnnotation: "2026-11-27 12:00:00.000000000 +0000 UTC"}},
		Data: map[string]string{live.StatusConfigMapKey: upstreamStatus}}
	upstreamCM, err := env.Client.CoreV1().ConfigMaps("kube-system").Create(t.Context(), upstreamCM, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(dir, "shadow.jsonl")
	naRun(t, "--dry-run", "--shadow-record-file", record, "--shadow-compare-window=30s", "--kubeconfig", workloadKubeconfig, "--cloud-provider=clusterapi", "--cloud-config", managementKubeconfig,
		"--node-group-auto-discovery=clusterapi:namespace="+capiNamespace+",clusterName=workload",
		"--address", addr, "--scan-interval=1s", "--expander=priority",
		"--scale-down-unneeded-time=1h", "--scale-down-delay-after-add=0s", "--scale-down-delay-after-delete=0s")
	waitMetric := func(t *testing.T, what, prefix string) {
		t.Helper()
		naPoll(t, what, func(ctx context.Context) (bool, error) { return shadowMetric(ctx, addr, prefix) > 0, nil })
	}

	t.Run("pending pods: a scale-up decided, counted and not made", func(t *testing.T) {
		naDeploy(t, env, "small", 3, "small", "1500m")
		waitMetric(t, "a dry-run scale-up of md-small", `kscale_shadow_scale_up_nodes_total{node_group="MachineDeployment/`+capiNamespace+`/md-small"}`)
		waitMetric(t, "a suppressed IncreaseSize", `kscale_shadow_suppressed_calls_total{call="increase_size"}`)
		if n, err := w.replicas(t.Context(), "md-small"); err != nil || n != 1 {
			t.Errorf("md-small replicas %d (%v), want 1: the dry run must not scale", n, err)
		}
		// Upstream decides alike for the pending pods.
		for _, p := range pendingPods(t, env, "small") {
			playUpstream(t, env, corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: p.Namespace, Name: p.Name, UID: p.UID},
				"TriggeredScaleUp", "pod triggered scale-up: [{MachineDeployment/"+capiNamespace+"/md-small 1->3 (max: 4)}]")
		}
		waitMetric(t, "an agreement on the scale-up", `kscale_shadow_comparisons_total{kind="scale_up",reason="same_group",verdict="agree"}`)
	})
	t.Run("empty nodes: a removal decided, counted and not made", func(t *testing.T) {
		// The running autoscaler (played here) grows md-small; the pods
		// then go away and two of its three nodes are unneeded.
		patch := []byte(`{"spec":{"replicas":3}}`)
		if _, err := w.dyn.Resource(clusterapitest.MachineDeployments).Namespace(capiNamespace).Patch(t.Context(), "md-small",
			types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		naExpectRunning(t, env, "small", 3)
		if _, err := env.Client.AppsV1().Deployments(fixture.DefaultNamespace).Patch(t.Context(), "small", types.MergePatchType,
			[]byte(`{"spec":{"replicas":0}}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		waitMetric(t, "a dry-run removal", `kscale_shadow_decisions_total{decision="scale_down"`)
		waitMetric(t, "a suppressed DeleteInstances", `kscale_shadow_suppressed_calls_total{call="delete_instances"}`)
		waitMetric(t, "a suppressed taint", `kscale_shadow_suppressed_calls_total{call="add_taint"}`)
		// Upstream removes every md-small node kscale may remove and one
		// more, which kscale keeps (the group's minimum).
		for _, n := range nodesOfGroup(t, env, "md-small") {
			playUpstream(t, env, corev1.ObjectReference{Kind: "Node", APIVersion: "v1", Name: n.Name, UID: n.UID},
				"ScaleDown", "marked the node as toBeDeleted/unschedulable")
		}
		waitMetric(t, "an agreement on a removal", `kscale_shadow_comparisons_total{kind="scale_down",reason="both_removed",verdict="agree"}`)
		// Upstream's status counts md-small's two unneeded nodes, as kscale does.
		upstreamCM.Data[live.StatusConfigMapKey] = strings.Replace(upstreamStatus, "nodeGroups: []\n",
			"nodeGroups:\n- name: MachineDeployment/"+capiNamespace+"/md-small\n  scaleDown:\n    status: CandidatesPresent\n    candidates: 2\n", 1)
		if upstreamCM, err = env.Client.CoreV1().ConfigMaps("kube-system").Update(t.Context(), upstreamCM, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitMetric(t, "an agreement on the unneeded nodes", `kscale_shadow_comparisons_total{kind="unneeded",reason="same_candidates",verdict="agree"}`)
		if got := len(nodesOfGroup(t, env, "md-small")); got != 3 {
			t.Errorf("md-small has %d nodes, want 3: the dry run must not remove any", got)
		}
		nodes, err := env.Client.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nodes.Items {
			if clusterstate.HasTaint(&n, clusterstate.ToBeDeletedTaint) || clusterstate.HasTaint(&n, clusterstate.DeletionCandidateTaint) || n.Spec.Unschedulable {
				t.Errorf("node %s: taints %v, unschedulable %v; the dry run must not touch nodes", n.Name, n.Spec.Taints, n.Spec.Unschedulable)
			}
		}
		if _, err := env.Client.CoreV1().ConfigMaps("kube-system").Get(t.Context(), live.ShadowStatusName, metav1.GetOptions{}); err != nil {
			t.Errorf("the dry run's own status ConfigMap: %v", err)
		}
	})
	t.Run("the record renders as a report", func(t *testing.T) {
		var out, errOut bytes.Buffer
		report := command("shadow")
		report.SetOut(&out)
		report.SetErr(&errOut)
		report.SetArgs([]string{"report", "--file", record})
		if err := report.ExecuteContext(t.Context()); err != nil {
			t.Fatalf("shadow report: %v: %s", err, errOut.String())
		}
		for _, want := range []string{"same_group", "both_removed", "same_candidates"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("report lacks %s:\n%s", want, out.String())
			}
		}
	})
	t.Run("the audit logs show no write but the own ConfigMap and Lease", func(t *testing.T) {
		cm, err := env.Client.CoreV1().ConfigMaps("kube-system").Get(t.Context(), live.StatusConfigMapName, metav1.GetOptions{})
		if err != nil || cm.ResourceVersion != upstreamCM.ResourceVersion {
			t.Errorf("upstream's status ConfigMap changed (%v): resourceVersion %s, was %s", err, cm.GetResourceVersion(), upstreamCM.ResourceVersion)
		}
		user := "system:serviceaccount:kube-system:" + shadowAccount
		for _, log := range []string{wLog, mLog} {
			reads, writes := auditOf(t, log, user)
			if reads == 0 {
				t.Errorf("%s: no read by %s; the audit log does not show the autoscaler", filepath.Base(log), user)
			}
			own := 0
			for _, e := range writes {
				if ownObject(e) {
					own++
					continue
				}
				t.Errorf("%s: write by the dry run: %s %s", filepath.Base(log), e.Verb, e.RequestURI)
			}
			if log == wLog && own == 0 {
				t.Errorf("%s: no write of the own status ConfigMap or Lease; the audit log misses them", filepath.Base(log))
			}
		}
	})
}

// nodesOfGroup lists the workload nodes of a MachineDeployment.
func nodesOfGroup(t *testing.T, env *testenv.Env, md string) []corev1.Node {
	t.Helper()
	list, err := env.Client.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{LabelSelector: capiMDLabel + "=" + md})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}
