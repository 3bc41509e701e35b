package live_test

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaleup"
)

// BenchmarkRecorderPodEvents records one loop's pod events at the size of
// BenchmarkLiveLoop: a scale-up caused by 500 pods and 500 pods no group
// helps. "steady" repeats the same loop within the dedup window (every
// event is dropped as a duplicate); "fresh" moves the clock past the
// window each time (every event is recorded).
func BenchmarkRecorderPodEvents(b *testing.B) {
	refs := make([]nodeautoscaler.PodRef, 1000)
	for i := range refs {
		refs[i] = nodeautoscaler.PodRef{Namespace: "default", Name: fmt.Sprintf("web-%d", i), UID: types.UID(fmt.Sprint(i))}
	}
	up := nodeautoscaler.Event{Type: nodeautoscaler.EventScaleUp, Group: "big", Delta: 50, Pods: 500, PodRefs: refs[:500],
		ScaleUps: []nodeautoscaler.ScaleUpInfo{{Group: "big", From: 10, To: 60, Max: 100}}}
	not := nodeautoscaler.Event{Type: nodeautoscaler.EventNotTriggerScaleUp, Pods: 500, PodRefs: refs[500:],
		GroupReasons: []scaleup.GroupReason{{Group: "big", Reason: "max size reached"}, {Group: "small", Reason: "does not fit the template: NodeResourcesFit: Insufficient cpu"}}}
	for _, mode := range []string{"steady", "fresh"} {
		b.Run(mode, func(b *testing.B) {
			clk := clocktesting.NewFakePassiveClock(time.Now())
			rec, err := live.NewRecorder(live.RecorderConfig{Events: &record.FakeRecorder{}, Cluster: newCluster(b, live.NewFactory(env.Client)),
				Namespace: "kube-system", Clock: clk})
			if err != nil {
				b.Fatal(err)
			}
			ctx := b.Context()
			b.ReportAllocs()
			for b.Loop() {
				if mode == "fresh" {
					clk.SetTime(clk.Now().Add(6 * time.Minute))
				}
				rec.Record(ctx, up)
				rec.Record(ctx, not)
			}
		})
	}
}
