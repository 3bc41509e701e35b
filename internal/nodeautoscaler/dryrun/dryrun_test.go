package dryrun

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaleup"
)

// readOnlyProvider implements only the reads; any write reaches the nil
// embedded interface and panics, failing the test.
type readOnlyProvider struct {
	cloudprovider.Provider
	groups []cloudprovider.NodeGroup
}

func (p readOnlyProvider) NodeGroups(context.Context) ([]cloudprovider.NodeGroup, error) {
	return p.groups, nil
}

// readOnlyCluster implements only GetPod; any write panics.
type readOnlyCluster struct {
	nodeautoscaler.ScaleDownCluster
	pod *corev1.Pod
}

func (c readOnlyCluster) GetPod(context.Context, string, string) (*corev1.Pod, error) {
	return c.pod, nil
}

func newMetrics(t *testing.T) (*Metrics, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	return m, reg
}

func TestProviderMakesNoWrite(t *testing.T) {
	m, _ := newMetrics(t)
	ctx := t.Context()
	p := NewProvider(readOnlyProvider{groups: []cloudprovider.NodeGroup{{ID: "g1", TargetSize: 2}}}, m)
	groups, err := p.NodeGroups(ctx)
	if err != nil || len(groups) != 1 || groups[0].TargetSize != 2 {
		t.Fatalf("NodeGroups = %v, %v; want the real provider's", groups, err)
	}
	for call, do := range map[string]func() error{
		CallIncreaseSize:       func() error { return p.IncreaseSize(ctx, "g1", 3) },
		CallDeleteInstances:    func() error { return p.DeleteInstances(ctx, "g1", []string{"i-1"}) },
		CallDecreaseTargetSize: func() error { return p.DecreaseTargetSize(ctx, "g1", 1) },
	} {
		if err := do(); err != nil {
			t.Errorf("%s: %v, want accepted", call, err)
		}
		if got := testutil.ToFloat64(m.suppressed.WithLabelValues(call)); got != 1 {
			t.Errorf("suppressed_calls_total{call=%s} = %v, want 1", call, got)
		}
	}
}

func TestClusterMakesNoWriteAndEvictedPodsLeaveOnce(t *testing.T) {
	m, _ := newMetrics(t)
	ctx := t.Context()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: "u1"}}
	c := NewCluster(readOnlyCluster{pod: pod}, m)
	if err := c.AddTaint(ctx, "n1", corev1.Taint{Key: "k"}); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveTaints(ctx, "n1", "k"); err != nil {
		t.Fatal(err)
	}
	if err := c.Cordon(ctx, "n1", true); err != nil {
		t.Fatal(err)
	}
	if got, err := c.GetPod(ctx, "ns", "p"); err != nil || got != pod {
		t.Fatalf("GetPod before eviction = %v, %v; want the real pod", got, err)
	}
	if err := c.EvictPod(ctx, pod, 30); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetPod(ctx, "ns", "p"); !actuation.IsPodGone(err) {
		t.Errorf("GetPod after the dry-run eviction: %v, want ErrPodGone", err)
	}
	if got, err := c.GetPod(ctx, "ns", "p"); err != nil || got != pod {
		t.Errorf("GetPod the second time = %v, %v; want the real pod again", got, err)
	}
	for _, call := range []string{CallAddTaint, CallRemoveTaints, CallCordon, CallEvictPod} {
		if got := testutil.ToFloat64(m.suppressed.WithLabelValues(call)); got != 1 {
			t.Errorf("suppressed_calls_total{call=%s} = %v, want 1", call, got)
		}
	}
}

type sliceSink []Decision

func (s *sliceSink) Decided(_ context.Context, d Decision) { *s = append(*s, d) }

func TestRecorderTurnsEventsIntoDecisions(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	pods := []nodeautoscaler.PodRef{{Namespace: "ns", Name: "a", UID: "ua"}, {Namespace: "ns", Name: "b", UID: "ub"}}
	tests := []struct {
		name       string
		event      nodeautoscaler.Event
		want       Decision
		wantReason string
	}{
		{name: "scale-up", event: nodeautoscaler.Event{Type: nodeautoscaler.EventScaleUp, Group: "g1", Delta: 2, Pods: 2, PodRefs: pods},
			want: Decision{Kind: DecisionScaleUp, Group: "g1", Delta: 2, Pods: pods}},
		{name: "no scale-up", event: nodeautoscaler.Event{Type: nodeautoscaler.EventNotTriggerScaleUp, Pods: 1, PodRefs: pods[:1],
			GroupReasons: []scaleup.GroupReason{{Group: "g1", Reason: "max size reached"}}},
			want: Decision{Kind: DecisionNoScaleUp, Pods: pods[:1], Reason: "1 max node group size reached"}},
		{name: "removal", event: nodeautoscaler.Event{Type: nodeautoscaler.EventScaleDownStarted, Group: "g1", Nodes: []string{"n1"}, Message: "empty"},
			want: Decision{Kind: DecisionScaleDown, Group: "g1", Delta: -1, Nodes: []string{"n1"}, Reason: "empty"}, wantReason: "empty"},
		{name: "unremovable", event: nodeautoscaler.Event{Type: nodeautoscaler.EventScaleDownBlocked, Group: "g1", Nodes: []string{"n2"}, Reason: "NotUnderutilized"},
			want: Decision{Kind: DecisionUnremovable, Group: "g1", Nodes: []string{"n2"}, Reason: "NotUnderutilized"}, wantReason: "NotUnderutilized"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := newMetrics(t)
			var sink sliceSink
			r, err := NewRecorder(RecorderConfig{Metrics: m, Clock: clocktesting.NewFakePassiveClock(now), Sink: &sink})
			if err != nil {
				t.Fatal(err)
			}
			r.Record(t.Context(), tt.event)
			if len(sink) != 1 {
				t.Fatalf("sink got %d decisions, want 1", len(sink))
			}
			got := sink[0]
			tt.want.Time = now
			if got.Kind != tt.want.Kind || got.Group != tt.want.Group || got.Delta != tt.want.Delta || got.Reason != tt.want.Reason ||
				len(got.Pods) != len(tt.want.Pods) || len(got.Nodes) != len(tt.want.Nodes) || !got.Time.Equal(now) {
				t.Errorf("decision %+v, want %+v", got, tt.want)
			}
			if c := testutil.ToFloat64(m.decisions.WithLabelValues(tt.want.Kind, tt.want.Group, tt.wantReason)); c != 1 {
				t.Errorf("decisions_total = %v, want 1", c)
			}
		})
	}
}

func TestRecorderCountsNodesAndPodsOfScaleUps(t *testing.T) {
	m, _ := newMetrics(t)
	r, err := NewRecorder(RecorderConfig{Metrics: m, Clock: clocktesting.NewFakePassiveClock(time.Unix(0, 0))})
	if err != nil {
		t.Fatal(err)
	}
	r.Record(t.Context(), nodeautoscaler.Event{Type: nodeautoscaler.EventScaleUp, Group: "g1", Delta: 3, Pods: 7})
	r.Record(t.Context(), nodeautoscaler.Event{Type: nodeautoscaler.EventScaleUp, Group: "g1", Delta: 1, Pods: 2})
	if got := testutil.ToFloat64(m.nodes.WithLabelValues("g1")); got != 4 {
		t.Errorf("scale_up_nodes_total = %v, want 4", got)
	}
	if got := testutil.ToFloat64(m.pods.WithLabelValues("g1")); got != 9 {
		t.Errorf("scale_up_pods_total = %v, want 9", got)
	}
	if _, err := NewRecorder(RecorderConfig{}); err == nil {
		t.Error("NewRecorder without metrics and clock: no error")
	}
}
