package estimator_test

import (
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/vpa/estimator"
	"github.com/kscale/kscale/internal/vpa/model"
)

const (
	mib = 1024 * 1024
	day = 24 * time.Hour
)

var t0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

// usage is the constant usage of one container over a span of minutes.
type usage struct {
	pod, container string
	from, minutes  int // first minute after t0 and number of one-minute samples
	cpuMilli       float64
	memBytes       float64
}

// feed builds a cluster with one VPA selecting app=web and plays the usage
// in time order, one sample per container per minute.
func feed(t *testing.T, us []usage) (*model.Cluster, model.VPAID) {
	t.Helper()
	c := model.NewCluster(model.DefaultConfig())
	id := model.VPAID{Namespace: "ns", Name: "web"}
	c.SetVPA(id, mustSelector(t, "app=web"), true)
	end := 0
	for _, u := range us {
		end = max(end, u.from+u.minutes)
		c.SetPod(model.PodID{Namespace: "ns", Name: u.pod}, map[string]string{"app": "web"}, []string{u.container}, false, t0)
	}
	for m := 0; m < end; m++ {
		ts := t0.Add(time.Duration(m) * time.Minute)
		for _, u := range us {
			if m < u.from || m >= u.from+u.minutes {
				continue
			}
			cs := c.Container(model.PodID{Namespace: "ns", Name: u.pod}, u.container)
			cs.AddCPU(ts, u.cpuMilli/1000)
			cs.AddMemory(ts, u.memBytes)
		}
	}
	return c, id
}

func newEstimator() *estimator.Estimator {
	cfg := estimator.DefaultConfig()
	return estimator.New(cfg)
}

type want struct {
	targetCPU, lowerCPU, upperCPU int64
	targetMem, lowerMem, upperMem int64
}

func check(t *testing.T, got estimator.Bounds, w want) {
	t.Helper()
	g := want{got.Target.CPU, got.Lower.CPU, got.Upper.CPU, got.Target.Memory, got.Lower.Memory, got.Upper.Memory}
	if g != w {
		t.Fatalf("bounds (target, lower, upper cpu m; target, lower, upper memory B)\n got %+v\nwant %+v", g, w)
	}
}

func TestScenario1SteadyUsageConfidence(t *testing.T) {
	tests := []struct {
		name    string
		minutes int
		want    want
	}{
		{"8 days", 8 * 1440, want{587, 586, 660, 380258472, 380163416, 427794907}},
		{"24h", 1440, want{587, 585, 1174, 380258472, 379498567, 760781195}},
		{"12h", 720, want{587, 584, 1762, 380258472, 378739886, 1141833158}},
		{"5 minutes", 5, want{587, 317, 211907, 380258472, 262144000, 137273308392}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, id := feed(t, []usage{{pod: "p", container: "app", minutes: tt.minutes, cpuMilli: 500, memBytes: 300 * mib}})
			check(t, newEstimator().Container(c.ContainerStates(id)["app"], 1), tt.want)
		})
	}
}

func TestScenario2PercentileAcrossFleet(t *testing.T) {
	var us []usage
	for i := range 10 {
		cpu := 100.0
		if i >= 8 {
			cpu = 1000
		}
		us = append(us, usage{pod: string(rune('a' + i)), container: "app", minutes: 1440, cpuMilli: cpu, memBytes: 300 * mib})
	}
	c, id := feed(t, us)
	if n := c.NumAggregates(); n != 1 {
		t.Fatalf("pods with one label set made %d aggregates, want 1", n)
	}
	s := c.ContainerStates(id)["app"]
	if s.TotalSamplesCount != 14400 {
		t.Fatalf("TotalSamplesCount = %d, want 14400", s.TotalSamplesCount)
	}
	b := newEstimator().Container(s, 1)
	if b.Target.CPU != 1168 || b.Lower.CPU != 125 || b.Upper.CPU != 2336 {
		t.Fatalf("cpu target/lower/upper = %d/%d/%d, want 1168/125/2336", b.Target.CPU, b.Lower.CPU, b.Upper.CPU)
	}
}

func TestScenario3Decay(t *testing.T) {
	t.Run("cpu 1000m for 4 days then 200m for 4 days", func(t *testing.T) {
		c, id := feed(t, []usage{
			{pod: "p", container: "app", minutes: 4 * 1440, cpuMilli: 1000, memBytes: 300 * mib},
			{pod: "p", container: "app", from: 4 * 1440, minutes: 4 * 1440, cpuMilli: 200, memBytes: 300 * mib},
		})
		b := newEstimator().Container(c.ContainerStates(id)["app"], 1)
		if b.Target.CPU != 247 || b.Lower.CPU != 246 || b.Upper.CPU != 1314 {
			t.Fatalf("cpu target/lower/upper = %d/%d/%d, want 247/246/1314", b.Target.CPU, b.Lower.CPU, b.Upper.CPU)
		}
	})
	t.Run("memory peaks ramp 100..800 MiB over 8 days", func(t *testing.T) {
		var us []usage
		for d := range 8 {
			us = append(us, usage{pod: "p", container: "app", from: d * 1440, minutes: 1440, cpuMilli: 500, memBytes: float64(d+1) * 100 * mib})
		}
		c, id := feed(t, us)
		b := newEstimator().Container(c.ContainerStates(id)["app"], 1)
		if b.Target.Memory != 978270031 || b.Lower.Memory != 978025488 || b.Upper.Memory != 1100564400 {
			t.Fatalf("memory target/lower/upper = %d/%d/%d, want 978270031/978025488/1100564400", b.Target.Memory, b.Lower.Memory, b.Upper.Memory)
		}
	})
}

func TestScenario4OOMBump(t *testing.T) {
	tests := []struct {
		name     string
		request  float64
		wantBump float64
		want     *want
	}{
		{name: "256 MiB request", request: 256 * mib, wantBump: 373293056,
			want: &want{targetMem: 442809964, lowerMem: 442699272, upperMem: 498166014}},
		{name: "1 GiB request", request: 1024 * mib, wantBump: 1288490188},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, id := feed(t, []usage{{pod: "p", container: "app", minutes: 8 * 1440, cpuMilli: 500, memBytes: 200 * mib}})
			e := newEstimator()
			if got := e.Container(c.ContainerStates(id)["app"], 1).Target.Memory; got != 262144000 {
				t.Fatalf("memory target before the OOM = %d, want the floor 262144000", got)
			}
			cs := c.Container(model.PodID{Namespace: "ns", Name: "p"}, "app")
			if !cs.RecordOOM(t0.Add(8*day-time.Minute), tt.request) {
				t.Fatal("RecordOOM dropped the OOM")
			}
			if got := cs.WindowPeak(); int64(got) != int64(tt.wantBump) {
				t.Fatalf("window peak after the OOM = %v, want %v", int64(got), int64(tt.wantBump))
			}
			if tt.want == nil {
				return
			}
			b := e.Container(c.ContainerStates(id)["app"], 1)
			if b.Target.Memory != tt.want.targetMem || b.Lower.Memory != tt.want.lowerMem || b.Upper.Memory != tt.want.upperMem {
				t.Fatalf("memory target/lower/upper = %d/%d/%d, want %d/%d/%d", b.Target.Memory, b.Lower.Memory, b.Upper.Memory,
					tt.want.targetMem, tt.want.lowerMem, tt.want.upperMem)
			}
		})
	}
}

func TestScenario5PodMinimums(t *testing.T) {
	one := want{25, 25, 25, 262144000, 262144000, 262144000}
	t.Run("one container", func(t *testing.T) {
		c, id := feed(t, []usage{{pod: "p", container: "app", minutes: 1440, cpuMilli: 5, memBytes: 20 * mib}})
		check(t, newEstimator().Container(c.ContainerStates(id)["app"], 1), one)
	})
	t.Run("two containers", func(t *testing.T) {
		c, id := feed(t, []usage{
			{pod: "p", container: "app", minutes: 1440, cpuMilli: 5, memBytes: 20 * mib},
			{pod: "p", container: "sidecar", minutes: 1440, cpuMilli: 5, memBytes: 20 * mib},
		})
		states := c.ContainerStates(id)
		for _, name := range []string{"app", "sidecar"} {
			check(t, newEstimator().Container(states[name], len(states)), want{12, 12, 22, 131072000, 131072000, 131072000})
		}
	})
	t.Run("zero samples", func(t *testing.T) {
		c := model.NewCluster(model.DefaultConfig())
		id := model.VPAID{Namespace: "ns", Name: "web"}
		c.SetVPA(id, mustSelector(t, "app=web"), true)
		c.SetPod(model.PodID{Namespace: "ns", Name: "p"}, map[string]string{"app": "web"}, []string{"app"}, false, t0)
		check(t, newEstimator().Container(c.ContainerStates(id)["app"], 1), one)
	})
}

func TestScenario6CappingInStatus(t *testing.T) {
	c, id := feed(t, []usage{{pod: "p", container: "app", minutes: 8 * 1440, cpuMilli: 500, memBytes: 300 * mib}})
	vpa := &vpav1.VerticalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"},
		Spec: vpav1.VerticalPodAutoscalerSpec{
			TargetRef: &autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			ResourcePolicy: &vpav1.PodResourcePolicy{ContainerPolicies: []vpav1.ContainerResourcePolicy{{
				ContainerName: "*", MaxAllowed: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")},
			}}},
		},
	}
	rec := newEstimator().Recommend(vpa, c.ContainerStates(id))
	if len(rec.ContainerRecommendations) != 1 {
		t.Fatalf("got %d recommendations, want 1", len(rec.ContainerRecommendations))
	}
	r := rec.ContainerRecommendations[0]
	expectQuantity(t, "target cpu", r.Target, corev1.ResourceCPU, "500m")
	expectQuantity(t, "uncappedTarget cpu", r.UncappedTarget, corev1.ResourceCPU, "587m")
	expectQuantity(t, "target memory", r.Target, corev1.ResourceMemory, "380258472")
	expectQuantity(t, "upperBound cpu", r.UpperBound, corev1.ResourceCPU, "500m")
	expectQuantity(t, "lowerBound cpu", r.LowerBound, corev1.ResourceCPU, "500m")
}

func expectQuantity(t *testing.T, what string, l corev1.ResourceList, r corev1.ResourceName, want string) {
	t.Helper()
	q, ok := l[r]
	if !ok {
		t.Fatalf("%s: missing", what)
	}
	w := resource.MustParse(want)
	if q.Cmp(w) != 0 {
		t.Fatalf("%s = %s, want %s", what, q.String(), want)
	}
}
