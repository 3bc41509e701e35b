package clusterstate

import (
	"testing"
	"time"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// A group's own max node provision time times its scale-up out instead of
// the global one, in both directions.
func TestGroupMaxNodeProvisionTime(t *testing.T) {
	for _, own := range []time.Duration{2 * time.Minute, 12 * time.Minute} {
		r := newRegistry(false)
		w := &world{}
		in := func() Input {
			i := w.input()
			i.Groups[0].Options = cloudprovider.Options{MaxNodeProvisionTime: &own}
			return i
		}
		r.Update(in(), t0)
		r.RegisterScaleUp("ng", 1, t0)
		w.target = 1
		w.placeholders(1, nil)
		timedOut := time.Duration(0)
		for now := t0; now.Sub(t0) <= 20*time.Minute && timedOut == 0; {
			now = now.Add(10 * time.Second)
			if hasEvent(r.Update(in(), now), ScaleUpTimedOut) {
				timedOut = now.Sub(t0)
			}
		}
		if timedOut <= own || timedOut > own+10*time.Second {
			t.Errorf("own provision time %v (global %v): timed out after %v", own, provision, timedOut)
		}
	}
}
