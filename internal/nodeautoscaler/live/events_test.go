package live

import (
	"fmt"
	"testing"

	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"
)

// TestEventSpamFilter runs events through a correlator with upstream's
// options: every distinct status message passes, a repeated one is
// dropped; on other objects an identical event passes once per five
// minutes without starving another message or reason on the same object.
func TestEventSpamFilter(t *testing.T) {
	o := EventOptions{StatusNamespace: "autoscaling", StatusName: "ca-status"}
	status := corev1.ObjectReference{Kind: "ConfigMap", Namespace: "autoscaling", Name: "ca-status", APIVersion: "v1"}
	pod := corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "p", UID: "u1", APIVersion: "v1"}
	ev := func(obj corev1.ObjectReference, reason, msg string) *corev1.Event {
		return &corev1.Event{InvolvedObject: obj, Reason: reason, Message: msg, Type: corev1.EventTypeNormal,
			Source: corev1.EventSource{Component: EventSource}, Count: 1}
	}
	type step struct {
		e        *corev1.Event
		wantSkip bool
	}
	steps := []step{
		{ev(status, "ScaleDown", "Scale-down: removing empty node \"n1\""), false},
		{ev(status, "ScaleDown", "Scale-down: removing empty node \"n1\""), true},
	}
	for i := range 40 {
		steps = append(steps, step{ev(status, "ScaledUpGroup", fmt.Sprintf("Scale-up: setting group g size to %d", i+1)), false})
	}
	steps = append(steps,
		step{ev(pod, "TriggeredScaleUp", "pod triggered scale-up: a"), false},
		step{ev(pod, "TriggeredScaleUp", "pod triggered scale-up: a"), true},
		step{ev(pod, "TriggeredScaleUp", "pod triggered scale-up: b"), false},
		step{ev(pod, "NotTriggerScaleUp", "pod didn't trigger scale-up"), false},
	)
	opts := correlatorOptions(o)
	opts.Clock = clocktesting.NewFakeClock(time.Unix(1000, 0))
	c := record.NewEventCorrelatorWithOptions(opts)
	for i, s := range steps {
		got, err := c.EventCorrelate(s.e)
		if err != nil {
			t.Fatal(err)
		}
		if got.Skip != s.wantSkip {
			t.Errorf("step %d (%s %q): skipped %v, want %v", i, s.e.Reason, s.e.Message, got.Skip, s.wantSkip)
		}
	}
	// client-go's default options drop status messages after a burst.
	def := record.NewEventCorrelatorWithOptions(record.CorrelatorOptions{Clock: clocktesting.NewFakeClock(time.Unix(1000, 0))})
	dropped := 0
	for i := range 40 {
		got, _ := def.EventCorrelate(ev(status, "ScaledUpGroup", fmt.Sprintf("Scale-up: setting group g size to %d", i+1)))
		if got.Skip {
			dropped++
		}
	}
	if dropped == 0 {
		t.Error("client-go's default correlator dropped no status events; the test no longer shows the difference")
	}
}
