package checkpoint_test

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	vpaclientset "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/client/clientset/versioned"

	"github.com/kscale/kscale/deploy/vpa/crds"
	"github.com/kscale/kscale/internal/testenv"
	"github.com/kscale/kscale/internal/vpa/checkpoint"
	"github.com/kscale/kscale/internal/vpa/model"
)

var t0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

const mib = 1024 * 1024

// history builds a model with VPA default/web over two days of usage of
// containers app and sidecar.
func history(t *testing.T) (*model.Cluster, model.VPAID) {
	t.Helper()
	c := model.NewCluster(model.DefaultConfig())
	id := model.VPAID{Namespace: "default", Name: "web"}
	c.SetVPA(id, labels.SelectorFromSet(labels.Set{"app": "web"}), true)
	pod := model.PodID{Namespace: "default", Name: "web-1"}
	c.SetPod(pod, map[string]string{"app": "web"}, []string{"app", "sidecar"}, false, t0)
	for m := range 2 * 1440 {
		ts := t0.Add(time.Duration(m) * time.Minute)
		for _, name := range []string{"app", "sidecar"} {
			cs := c.Container(pod, name)
			cs.AddCPU(ts, 0.2+float64(m%5)*0.1)
			cs.AddMemory(ts, float64(200+m%100)*mib)
		}
	}
	return c, id
}

func TestWriteLoadAndCollect(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	ctx := t.Context()
	if err := crds.Install(ctx, env.Config, time.Minute); err != nil {
		t.Fatal(err)
	}
	vc := vpaclientset.NewForConfigOrDie(env.Config).AutoscalingV1()
	cfg := checkpoint.Config{}
	cfg.Default()
	mgr := checkpoint.NewManager(vc, cfg)
	live, id := history(t)
	now := t0.Add(48 * time.Hour)

	n, err := mgr.Write(ctx, live, []model.VPAID{id}, now)
	if err != nil || n != 1 {
		t.Fatalf("Write = %d, %v; want 1, nil", n, err)
	}
	// A second write patches the existing objects.
	if n, err := mgr.Write(ctx, live, []model.VPAID{id}, now.Add(time.Minute)); err != nil || n != 1 {
		t.Fatalf("second Write = %d, %v; want 1, nil", n, err)
	}
	got, err := vc.VerticalPodAutoscalerCheckpoints("default").Get(ctx, "web-app", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.VPAObjectName != "web" || got.Spec.ContainerName != "app" || got.Status.Version != model.CheckpointVersion ||
		!got.Status.LastUpdateTime.Time.Equal(now.Add(time.Minute)) || got.Status.TotalSamplesCount != 2*1440 {
		t.Fatalf("stored checkpoint = %+v %+v", got.Spec, got.Status)
	}

	t.Run("a fresh model loads the history back", func(t *testing.T) {
		fresh := model.NewCluster(model.DefaultConfig())
		fresh.SetVPA(id, labels.SelectorFromSet(labels.Set{"app": "web"}), true)
		loaded, err := mgr.Load(ctx, fresh, now)
		if err != nil || loaded != 2 {
			t.Fatalf("Load = %d, %v; want 2, nil", loaded, err)
		}
		want := live.ContainerStates(id)
		for name, s := range fresh.ContainerStates(id) {
			w := want[name]
			if s.TotalSamplesCount != w.TotalSamplesCount || !s.FirstSampleStart.Equal(w.FirstSampleStart) || !s.LastSampleStart.Equal(w.LastSampleStart) {
				t.Fatalf("%s: restored %d %v %v, want %d %v %v", name, s.TotalSamplesCount, s.FirstSampleStart, s.LastSampleStart,
					w.TotalSamplesCount, w.FirstSampleStart, w.LastSampleStart)
			}
			for _, p := range []float64{0.5, 0.9, 0.95} {
				if a, b := s.CPU.Percentile(p), w.CPU.Percentile(p); a != b {
					t.Fatalf("%s cpu p%v: restored %v, want %v", name, p, a, b)
				}
			}
			if s.Memory.IsEmpty() {
				t.Fatalf("%s: restored memory history is empty", name)
			}
		}
	})

	t.Run("broken and foreign checkpoints are skipped", func(t *testing.T) {
		bad := &vpav1.VerticalPodAutoscalerCheckpoint{
			ObjectMeta: metav1.ObjectMeta{Name: "web-old", Namespace: "default"},
			Spec:       vpav1.VerticalPodAutoscalerCheckpointSpec{VPAObjectName: "web", ContainerName: "old"},
			Status:     vpav1.VerticalPodAutoscalerCheckpointStatus{Version: "v2"},
		}
		if _, err := vc.VerticalPodAutoscalerCheckpoints("default").Create(ctx, bad, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		fresh := model.NewCluster(model.DefaultConfig())
		fresh.SetVPA(id, labels.Everything(), true)
		if loaded, err := mgr.Load(ctx, fresh, now); err != nil || loaded != 2 {
			t.Fatalf("Load = %d, %v; want 2 (the v2 checkpoint skipped), nil", loaded, err)
		}
		if _, ok := fresh.ContainerStates(id)["old"]; ok {
			t.Fatal("the v2 checkpoint was loaded")
		}
		other := model.NewCluster(model.DefaultConfig())
		if loaded, _ := mgr.Load(ctx, other, now); loaded != 0 {
			t.Fatalf("loaded %d checkpoints into a model without their VPA", loaded)
		}
	})

	t.Run("garbage collection deletes checkpoints of missing VPAs, at most every interval", func(t *testing.T) {
		deleted, err := mgr.GarbageCollect(ctx, map[model.VPAID]bool{id: true}, now)
		if err != nil || deleted != 0 {
			t.Fatalf("GarbageCollect with the VPA present = %d, %v", deleted, err)
		}
		if deleted, _ := mgr.GarbageCollect(ctx, map[model.VPAID]bool{}, now.Add(time.Minute)); deleted != 0 {
			t.Fatalf("GarbageCollect ran again within the interval and deleted %d", deleted)
		}
		deleted, err = mgr.GarbageCollect(ctx, map[model.VPAID]bool{}, now.Add(cfg.GCInterval))
		if err != nil || deleted != 3 {
			t.Fatalf("GarbageCollect = %d, %v; want 3, nil", deleted, err)
		}
		list, err := vc.VerticalPodAutoscalerCheckpoints("default").List(ctx, metav1.ListOptions{})
		if err != nil || len(list.Items) != 0 {
			t.Fatalf("%d checkpoints left, %v", len(list.Items), err)
		}
	})
}
