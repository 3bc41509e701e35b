package machinesim

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// NodeGroups refreshes p and returns its groups by id; an error fails
// the test.
func NodeGroups(t testing.TB, p cloudprovider.Provider) map[string]cloudprovider.NodeGroup {
	t.Helper()
	ctx := context.Background()
	if err := p.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	gs, err := p.NodeGroups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]cloudprovider.NodeGroup{}
	for _, g := range gs {
		out[g.ID] = g
	}
	return out
}

// PollInstances refreshes p until cond holds on the group's instances
// (within 30 seconds) and returns them; what names the wait in the
// failure.
func PollInstances(t testing.TB, p cloudprovider.Provider, what, group string, cond func([]cloudprovider.Instance) bool) []cloudprovider.Instance {
	t.Helper()
	var last []cloudprovider.Instance
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		if err := p.Refresh(ctx); err != nil {
			return false, err
		}
		var err error
		last, err = p.Instances(ctx, group)
		return err == nil && cond(last), err
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v (instances %+v)", what, err, last)
	}
	return last
}
