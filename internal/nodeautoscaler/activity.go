package nodeautoscaler

import "time"

// Upstream's function and activity names of the loop's parts
// (cluster_autoscaler_function_duration_seconds{function} and
// cluster_autoscaler_last_activity{activity}).
const (
	FunctionCloudProviderRefresh = "cloudProviderRefresh"
	FunctionUpdateClusterState   = "updateClusterState"
	FunctionScaleUp              = "scaleUp"
	FunctionScaleDown            = "scaleDown"
	ActivityAutoscaling          = "autoscaling"
)

// FunctionTiming is how long one part of a loop took.
type FunctionTiming struct {
	// Function is upstream's function label.
	Function string
	// Duration is the time it took.
	Duration time.Duration
}

// LoopActivity is what the last RunOnce did, for the loop metrics: when
// its parts started (upstream's last_activity: autoscaling, scaleUp,
// scaleDown) and how long the timed ones took. It measures with
// Config.Clock; decisions never read it.
type LoopActivity struct {
	// Started maps an activity to when it began this loop; absent when it
	// did not run.
	Started map[string]time.Time
	// Timings are the timed parts, in the order they ran.
	Timings []FunctionTiming
}

// Activity returns what the last RunOnce did.
func (a *Autoscaler) Activity() LoopActivity { return a.activity }

// began records that activity started now.
func (a *Autoscaler) began(activity string) time.Time {
	now := a.cfg.Clock.Now()
	a.activity.Started[activity] = now
	return now
}

// took records function's duration from start.
func (a *Autoscaler) took(function string, start time.Time) {
	a.activity.Timings = append(a.activity.Timings, FunctionTiming{Function: function, Duration: a.cfg.Clock.Since(start)})
}
