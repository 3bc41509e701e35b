package live_test

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/nodeautoscaler/backoff"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
)

func TestStatusDocument(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	ready := clusterstate.GroupState{Group: cloudprovider.NodeGroup{ID: "a", MinSize: 1, MaxSize: 5, TargetSize: 3},
		Readiness: clusterstate.Readiness{Ready: 2, Unregistered: 1}, ScaleUpInProgress: true}
	backedOff := clusterstate.GroupState{Group: cloudprovider.NodeGroup{ID: "b", MaxSize: 5, TargetSize: 1},
		Readiness: clusterstate.Readiness{Unready: 4, LongUnregistered: 1},
		Backoff:   backoff.Status{BackedOff: true, Reason: backoff.Reason{Code: "InsufficientInstanceCapacity", Message: "no capacity"}}}
	w := live.NewStatusWriter(env.Client, "default")
	doc := w.Document(live.StatusInput{Now: t0, Running: true, Groups: []clusterstate.GroupState{ready, backedOff}})
	tests := []struct {
		name      string
		got, want any
	}{
		{"autoscalerStatus", doc.AutoscalerStatus, live.AutoscalerRunning},
		{"cluster scaleUp", doc.ClusterWide.ScaleUp.Status, live.ScaleUpInProgress},
		{"cluster ready", doc.ClusterWide.Health.NodeCounts.Registered.Ready, 2},
		{"cluster registered", doc.ClusterWide.Health.NodeCounts.Registered.Total, 6},
		{"a health", doc.NodeGroups[0].Health.Status, live.HealthHealthy},
		{"a target", *doc.NodeGroups[0].Health.CloudProviderTarget, 3},
		{"a scaleUp", doc.NodeGroups[0].ScaleUp.Status, live.ScaleUpInProgress},
		{"b health", doc.NodeGroups[1].Health.Status, live.HealthUnhealthy},
		{"b scaleUp", doc.NodeGroups[1].ScaleUp.Status, live.ScaleUpBackoff},
		{"b backoff code", doc.NodeGroups[1].ScaleUp.BackoffInfo.ErrorCode, "InsufficientInstanceCapacity"},
		{"scaleDown left out", doc.ClusterWide.ScaleDown == nil, true},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	// The transition time moves only when the status changes.
	ready.ScaleUpInProgress = false
	later := w.Document(live.StatusInput{Now: t0.Add(time.Minute), Running: true, Groups: []clusterstate.GroupState{ready, backedOff},
		ScaleDownCandidates: map[string]int{"a": 1}})
	if got := later.NodeGroups[0].Health.LastTransitionTime.Time; !got.Equal(t0) {
		t.Errorf("health transition moved to %v without a change", got)
	}
	if got := later.NodeGroups[0].ScaleUp.LastTransitionTime.Time; !got.Equal(t0.Add(time.Minute)) {
		t.Errorf("scaleUp transition %v, want the time of the change", got)
	}
	if got := later.ClusterWide.ScaleDown; got == nil || got.Status != live.ScaleDownCandidates || got.Candidates != 1 {
		t.Errorf("cluster scaleDown = %+v, want 1 candidate", got)
	}
}

func TestStatusWriteUpstreamLayout(t *testing.T) {
	ctx := t.Context()
	createNamespace(t, "status")
	w := live.NewStatusWriter(env.Client, "status")
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	g := clusterstate.GroupState{Group: cloudprovider.NodeGroup{ID: "a", MaxSize: 5, TargetSize: 1}, Readiness: clusterstate.Readiness{Ready: 1}}
	for i, running := range []bool{false, true} { // create, then update
		now := t0.Add(time.Duration(i) * time.Minute)
		if err := w.Write(ctx, w.Document(live.StatusInput{Now: now, Running: running, Groups: []clusterstate.GroupState{g}}), now); err != nil {
			t.Fatal(err)
		}
	}
	cm, err := env.Client.CoreV1().ConfigMaps("status").Get(ctx, live.StatusConfigMapName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cm.Annotations[live.LastUpdatedAnnotation] == "" {
		t.Errorf("annotation %s missing", live.LastUpdatedAnnotation)
	}
	// Read it back the way tooling does: as a generic YAML tree.
	var tree map[string]any
	if err := yaml.Unmarshal([]byte(cm.Data[live.StatusConfigMapKey]), &tree); err != nil {
		t.Fatal(err)
	}
	if tree["autoscalerStatus"] != "Running" {
		t.Errorf("autoscalerStatus = %v", tree["autoscalerStatus"])
	}
	groups, _ := tree["nodeGroups"].([]any)
	if len(groups) != 1 {
		t.Fatalf("nodeGroups = %v", tree["nodeGroups"])
	}
	health := groups[0].(map[string]any)["health"].(map[string]any)
	counts := health["nodeCounts"].(map[string]any)["registered"].(map[string]any)
	if health["status"] != "Healthy" || health["cloudProviderTarget"] != float64(1) || counts["ready"] != float64(1) {
		t.Errorf("group health = %v", health)
	}
	for _, k := range []string{"time", "clusterWide"} {
		if _, ok := tree[k]; !ok {
			t.Errorf("key %q missing", k)
		}
	}
}
