package live

import (
	"context"
	"errors"
	"time"

	"k8s.io/utils/clock"
)

// Batch is the batching rule of loops started by an unschedulable pod.
// kube-scheduler marks the pods of a burst unschedulable one after another;
// a loop that starts at the first of them scales up for that pod alone and
// leaves the rest to the next loop (two increases, the second one a loop
// later). So a triggered loop waits until no pod has turned unschedulable
// for Idle, but no longer than Max after the first one, as Karpenter
// batches pending pods (1 s idle, 10 s at most there; shorter here because
// the loop itself is fast and the wait adds to every pod's latency). A
// loop that starts at its scan interval or right after a productive loop
// does not wait.
type Batch struct {
	// Idle ends the wait when no pod turned unschedulable for this long;
	// 0 disables batching.
	Idle time.Duration
	// Max bounds the wait from the first pod on; at least Idle.
	Max time.Duration
}

// The batching rule's defaults (--scale-up-batch-idle-duration,
// --scale-up-batch-max-duration).
const (
	DefaultBatchIdle = 300 * time.Millisecond
	DefaultBatchMax  = time.Second
)

// Validate reports a negative duration or a Max shorter than Idle.
func (b Batch) Validate() error {
	switch {
	case b.Idle < 0 || b.Max < 0:
		return errors.New("batch durations must not be negative")
	case b.Idle > 0 && b.Max < b.Idle:
		return errors.New("the batch's maximum must not be shorter than its idle time")
	}
	return nil
}

// wait waits after the first signal of trigger as the rule says and
// returns how long it waited and how many later signals it took in. It
// returns early when ctx ends.
func (b Batch) wait(ctx context.Context, clk clock.WithTicker, trigger <-chan struct{}) (time.Duration, int) {
	if b.Idle <= 0 {
		return 0, 0
	}
	start := clk.Now()
	deadline := clk.NewTimer(b.Max)
	defer deadline.Stop()
	signals := 0
	for {
		idle := clk.NewTimer(b.Idle)
		select {
		case <-ctx.Done():
			idle.Stop()
			return clk.Since(start), signals
		case <-deadline.C():
			idle.Stop()
			return clk.Since(start), signals
		case <-idle.C():
			return clk.Since(start), signals
		case <-trigger:
			idle.Stop()
			signals++
		}
	}
}
