package live_test

import (
	"reflect"
	"strings"
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
	backedOff := clusterstate.GroupState{Group: cloudprovider.NodeGroup{ID: "b", MaxSize: 5, TargetSize: 1,
		Template: cloudprovider.Template{UnavailableReason: "no capacity annotations"}},
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
		{"a no message", doc.NodeGroups[0].ScaleUp.Message, ""},
		{"b says why it has no template", strings.Contains(doc.NodeGroups[1].ScaleUp.Message, "(no capacity annotations)"), true},
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

func TestStatusScaleDownSections(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	groups := []clusterstate.GroupState{{Group: cloudprovider.NodeGroup{ID: "a", MaxSize: 5}}, {Group: cloudprovider.NodeGroup{ID: "b", MaxSize: 5}}}
	w := live.NewStatusWriter(env.Client, "default")
	type want struct {
		cluster, a, b    string
		candidates, aCnt int
		// since are the expected transition times (offsets from t0) of
		// the cluster's, a's and b's scaleDown condition.
		since [3]time.Duration
	}
	steps := []struct {
		name       string
		candidates map[string]int
		want       want
	}{
		{"nothing unneeded", map[string]int{}, want{live.ScaleDownNoCandidates, live.ScaleDownNoCandidates, live.ScaleDownNoCandidates, 0, 0, [3]time.Duration{0, 0, 0}}},
		{"a has two", map[string]int{"a": 2}, want{live.ScaleDownCandidates, live.ScaleDownCandidates, live.ScaleDownNoCandidates, 2, 2, [3]time.Duration{time.Minute, time.Minute, 0}}},
		{"a and a group not managed", map[string]int{"a": 1, "gone": 4}, want{live.ScaleDownCandidates, live.ScaleDownCandidates, live.ScaleDownNoCandidates, 1, 1, [3]time.Duration{time.Minute, time.Minute, 0}}},
		{"none again", map[string]int{}, want{live.ScaleDownNoCandidates, live.ScaleDownNoCandidates, live.ScaleDownNoCandidates, 0, 0, [3]time.Duration{3 * time.Minute, 3 * time.Minute, 0}}},
	}
	for i, st := range steps {
		now := t0.Add(time.Duration(i) * time.Minute)
		doc := w.Document(live.StatusInput{Now: now, Running: true, Groups: groups, ScaleDownCandidates: st.candidates})
		cw, a, b := doc.ClusterWide.ScaleDown, doc.NodeGroups[0].ScaleDown, doc.NodeGroups[1].ScaleDown
		if cw == nil || a == nil || b == nil {
			t.Fatalf("%s: scaleDown sections missing: %+v", st.name, doc)
		}
		got := want{cw.Status, a.Status, b.Status, cw.Candidates, a.Candidates, [3]time.Duration{
			cw.LastTransitionTime.Sub(t0), a.LastTransitionTime.Sub(t0), b.LastTransitionTime.Sub(t0)}}
		if got != st.want {
			t.Errorf("%s: got %+v, want %+v", st.name, got, st.want)
		}
		if !cw.LastProbeTime.Time.Equal(now) || !b.LastProbeTime.Time.Equal(now) {
			t.Errorf("%s: probe times %v, %v, want %v", st.name, cw.LastProbeTime, b.LastProbeTime, now)
		}
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
		in := live.StatusInput{Now: now, Running: running, Groups: []clusterstate.GroupState{g}, ScaleDownCandidates: map[string]int{"a": 1}}
		if err := w.Write(ctx, w.Document(in), now); err != nil {
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
	wantDown := map[string]any{"status": "CandidatesPresent", "candidates": float64(1),
		"lastProbeTime": "2026-11-22T10:01:00Z", "lastTransitionTime": "2026-11-22T10:00:00Z"}
	for where, down := range map[string]any{"nodeGroups[0]": groups[0].(map[string]any)["scaleDown"],
		"clusterWide": tree["clusterWide"].(map[string]any)["scaleDown"]} {
		if !reflect.DeepEqual(down, wantDown) {
			t.Errorf("%s.scaleDown = %v, want %v", where, down, wantDown)
		}
	}
}

// Upstream leaves candidates out when there are none.
func TestStatusNoCandidatesLayout(t *testing.T) {
	w := live.NewStatusWriter(env.Client, "default")
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	doc := w.Document(live.StatusInput{Now: t0, Running: true, ScaleDownCandidates: map[string]int{}})
	data, err := yaml.Marshal(doc.ClusterWide.ScaleDown)
	if err != nil {
		t.Fatal(err)
	}
	want := "lastProbeTime: \"2026-11-22T10:00:00Z\"\nlastTransitionTime: \"2026-11-22T10:00:00Z\"\nstatus: NoCandidates\n"
	if string(data) != want {
		t.Errorf("scaleDown rendered as\n%s\nwant\n%s", data, want)
	}
}
