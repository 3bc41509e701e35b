package nodeautoscaler

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/nodeautoscaler/backoff"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
)

// TestRestoredBackoffSkipsTheFailedGroup: a new autoscaler (a new leader)
// given the backoff state of the old one does not try the out-of-stock
// group again, under both backoff policies.
func TestRestoredBackoffSkipsTheFailedGroup(t *testing.T) {
	for _, infinite := range []bool{false, true} {
		t.Run(map[bool]string{false: "exponential", true: "no-full-scale-down"}[infinite], func(t *testing.T) {
			mutate := func(o *options.Options) { o.BackoffNoFullScaleDown = infinite }
			old, cloud, cl, _, _, now := newLoop(t, mutate)
			if err := cloud.SetCreationError("ng-high", cloudprovider.ErrorInfo{Class: cloudprovider.ErrorOutOfResources, Code: "InsufficientInstanceCapacity"}); err != nil {
				t.Fatal(err)
			}
			cl.pods = []*corev1.Pod{pendingPod("a", now)}
			for i := range 3 {
				if err := old.RunOnce(t.Context(), now.Add(time.Duration(i)*10*time.Second)); err != nil {
					t.Fatal(err)
				}
			}
			state := old.BackoffState()
			if len(state.ScaleUp) != 1 || state.ScaleUp[0].Group != "ng-high" || state.ScaleUp[0].Reason.Code != "InsufficientInstanceCapacity" {
				t.Fatalf("exported state %+v, want ng-high backed off for the stock-out", state)
			}

			// The new process sees the same cloud (which keeps the sentinel
			// of the no-full-scale-down mode) and the same cluster.
			_, wantHigh, _ := cloud.Group("ng-high")
			_, wantLow, _ := cloud.Group("ng-low")
			fresh, err := New(Config{Options: old.cfg.Options, Provider: cloud, Cluster: cl, Clock: old.cfg.Clock, Rand: rand.New(rand.NewPCG(2, 2)),
				Backoff: &savedBackoff{}})
			if err != nil {
				t.Fatal(err)
			}
			if err := fresh.RestoreBackoff(state); err != nil {
				t.Fatal(err)
			}
			cl.pods = append(cl.pods, pendingPod("b", now))
			if err := fresh.RunOnce(t.Context(), now.Add(time.Minute)); err != nil {
				t.Fatal(err)
			}
			_, high, _ := cloud.Group("ng-high")
			_, low, _ := cloud.Group("ng-low")
			if high != wantHigh || low != wantLow+1 {
				t.Errorf("targets after restore: ng-high %d, ng-low %d; want %d and %d", high, low, wantHigh, wantLow+1)
			}
		})
	}
}

// savedBackoff records what the loop saved.
type savedBackoff struct{ last backoff.State }

func (s *savedBackoff) SaveBackoff(_ context.Context, st backoff.State) error {
	s.last = st
	return nil
}

// TestBackoffIsSavedWhenAGroupIsBackedOff: the state reaches the store in
// the loop that backed the group off.
func TestBackoffIsSavedWhenAGroupIsBackedOff(t *testing.T) {
	a, cloud, cl, _, _, now := newLoop(t, nil)
	store := &savedBackoff{}
	a.cfg.Backoff = store
	if err := cloud.SetAPIError("ng-high", errors.New("throttled")); err != nil {
		t.Fatal(err)
	}
	cl.pods = []*corev1.Pod{pendingPod("a", now)}
	if err := a.RunOnce(t.Context(), now); err != nil {
		t.Fatal(err)
	}
	if len(store.last.ScaleUp) != 1 || store.last.ScaleUp[0].Group != "ng-high" {
		t.Errorf("saved %+v, want ng-high backed off", store.last)
	}
}
