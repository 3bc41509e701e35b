package kwok_test

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/cloudprovider/kwok"
	"github.com/kscale/kscale/internal/testenv"
)

// TestRunSyncsEarlyOnSizeChange runs the provider's loop on a fake clock
// that never reaches the sync interval: the first sync writes the node of
// the group's minimum, and the machine a size change launches gets its
// node anyway, because the change raises the loop's trigger.
func TestRunSyncsEarlyOnSizeChange(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	cfg, err := kwok.ParseCloudConfig([]byte("nodeGroups:\n- {name: pool, min: 1, max: 2, instanceTypes: [m5.large], bootTime: 0s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC))
	p, err := kwok.New(kwok.Config{Client: env.Client, Clock: clk, NodeGroups: cfg.NodeGroups, SyncInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run() = %v", err)
		}
	})
	waitNodes(t, env, 1)
	if err := p.IncreaseSize(t.Context(), "pool", 1); err != nil {
		t.Fatal(err)
	}
	waitNodes(t, env, 2)
}

// waitNodes waits until the cluster has n nodes.
func waitNodes(t *testing.T, env *testenv.Env, n int) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		list, err := env.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		return err == nil && len(list.Items) == n, err
	})
	if err != nil {
		t.Fatalf("waiting for %d nodes without a tick: %v", n, err)
	}
}
