package input

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	"github.com/kscale/kscale/internal/fixture"
)

var t0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

func withStatus(p *corev1.Pod, restarts int32, state, last *corev1.ContainerStateTerminated) *corev1.Pod {
	p = p.DeepCopy()
	cs := corev1.ContainerStatus{Name: "app", RestartCount: restarts}
	cs.State.Terminated = state
	cs.LastTerminationState.Terminated = last
	p.Status.ContainerStatuses = []corev1.ContainerStatus{cs}
	return p
}

func term(reason string, at time.Time) *corev1.ContainerStateTerminated {
	return &corev1.ContainerStateTerminated{Reason: reason, FinishedAt: metav1.NewTime(at)}
}

func TestOOMsFromPodUpdate(t *testing.T) {
	base := fixture.Pod("p", fixture.WithRequests("cpu", "100m", "memory", "256Mi"))
	oom := term("OOMKilled", t0)
	tests := []struct {
		name     string
		old, cur *corev1.Pod
		want     int
	}{
		{"terminated with OOMKilled", withStatus(base, 0, nil, nil), withStatus(base, 0, oom, nil), 1},
		{"same termination seen again", withStatus(base, 0, oom, nil), withStatus(base, 0, oom, nil), 0},
		{"restart after an OOM already seen", withStatus(base, 0, oom, nil), withStatus(base, 1, nil, oom), 0},
		{"restart after an unseen OOM", withStatus(base, 0, nil, nil), withStatus(base, 1, nil, oom), 1},
		{"restart after an error", withStatus(base, 0, nil, nil), withStatus(base, 1, nil, term("Error", t0)), 0},
		{"no old status", base, withStatus(base, 0, oom, nil), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := OOMsFromPodUpdate(tt.old, tt.cur)
			if len(got) != tt.want {
				t.Fatalf("got %d OOMs (%+v), want %d", len(got), got, tt.want)
			}
			if tt.want == 1 && (got[0].MemoryBytes != 256*1024*1024 || !got[0].Time.Equal(t0) || got[0].Container != "app") {
				t.Fatalf("OOM = %+v, want app at t0 with the 256Mi request", got[0])
			}
		})
	}
	var o OOMObserver
	o.OnPodUpdate(withStatus(base, 0, nil, nil), withStatus(base, 0, oom, nil))
	if len(o.Drain()) != 1 || len(o.Drain()) != 0 {
		t.Fatal("Drain did not return the OOM exactly once")
	}
}

func TestOOMsFromEvictionEvent(t *testing.T) {
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(t0), Annotations: map[string]string{
			"starved_resource": "memory", "offending_containers": "app,side", "offending_containers_usage": "300Mi,bad",
		}},
		Reason:         "Evicted",
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "p"},
	}
	got := OOMsFromEvictionEvent(ev)
	if len(got) != 1 || got[0].Container != "app" || got[0].MemoryBytes != 300*1024*1024 {
		t.Fatalf("got %+v, want one OOM of app at 300Mi", got)
	}
	ev.Annotations["starved_resource"] = "cpu"
	if got := OOMsFromEvictionEvent(ev); len(got) != 0 {
		t.Fatalf("cpu eviction gave OOMs: %+v", got)
	}
}

func TestUsageFromPodMetrics(t *testing.T) {
	items := []metricsv1beta1.PodMetrics{{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"},
		Timestamp:  metav1.NewTime(t0),
		Containers: []metricsv1beta1.ContainerMetrics{
			{Name: "app", Usage: corev1.ResourceList{"cpu": resource.MustParse("250m"), "memory": resource.MustParse("100Mi")}},
			{Name: "side", Usage: corev1.ResourceList{"memory": resource.MustParse("1Mi")}},
		},
	}}
	got := UsageFromPodMetrics(items)
	if len(got) != 2 || got[0].CPUCores != 0.25 || got[0].MemoryBytes != 100*1024*1024 || !got[0].Time.Equal(t0) {
		t.Fatalf("got %+v", got)
	}
	if got[1].CPUCores >= 0 {
		t.Fatalf("missing cpu reported as %v, want negative", got[1].CPUCores)
	}
}

func TestPodInfoFromPod(t *testing.T) {
	p := fixture.Pod("p", fixture.WithInitContainer("init", false), fixture.WithContainer("side"))
	if _, ok := PodInfoFromPod(p); ok {
		t.Fatal("a pod without phase (pending) was tracked")
	}
	p.Status.Phase = corev1.PodRunning
	info, ok := PodInfoFromPod(p)
	if !ok || len(info.Containers) != 2 || info.Containers[0] != "app" || info.Containers[1] != "side" || info.Terminal {
		t.Fatalf("info = %+v", info)
	}
	p.Status.Phase = corev1.PodSucceeded
	if info, _ := PodInfoFromPod(p); !info.Terminal {
		t.Fatal("succeeded pod not terminal")
	}
}
