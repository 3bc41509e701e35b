package live_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"

	"github.com/kscale/kscale/internal/nodeautoscaler/live"
)

func TestPrioritiesFollowTheConfigMap(t *testing.T) {
	ctx := t.Context()
	createNamespace(t, "prio")
	factory := informers.NewSharedInformerFactoryWithOptions(env.Client, 0, informers.WithNamespace("prio"))
	p := live.NewPriorities(factory, "prio")
	factory.Start(ctx.Done())
	t.Cleanup(factory.Shutdown)
	factory.WaitForCacheSync(ctx.Done())
	if _, err := p.Get(); err == nil {
		t.Fatal("Get without the ConfigMap: want an error")
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: live.PriorityConfigMapName, Namespace: "prio"},
		Data: map[string]string{live.PriorityConfigMapKey: "10:\n- spot-.*\n50:\n- on-demand\n"}}
	cm, err := env.Client.CoreV1().ConfigMaps("prio").Create(ctx, cm, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitPriorities(t, p, func(n int, err error) bool { return err == nil && n == 2 })
	cm.Data[live.PriorityConfigMapKey] = "10: [\"(\"]"
	if _, err := env.Client.CoreV1().ConfigMaps("prio").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPriorities(t, p, func(_ int, err error) bool { return err != nil })
}

func waitPriorities(t *testing.T, p *live.Priorities, ok func(int, error) bool) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		prios, err := p.Source()()
		last = err
		return ok(len(prios), err), nil
	})
	if err != nil {
		t.Fatalf("priorities never reached the wanted state; last error %v", last)
	}
}
