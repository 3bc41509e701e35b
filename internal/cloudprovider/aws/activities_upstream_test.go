package aws

import (
	"testing"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	astypes "github.com/aws/aws-sdk-go-v2/service/autoscaling/types"
)

// TestUpstreamFailure checks upstream's walk over a page of activities:
// newest first, stopping at the first one that started before the last
// SetDesiredCapacity, taking only Failed ones.
func TestUpstreamFailure(t *testing.T) {
	set := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	act := func(id string, start time.Time, code astypes.ScalingActivityStatusCode) astypes.Activity {
		return astypes.Activity{ActivityId: awssdk.String(id), StartTime: awssdk.Time(start), StatusCode: code}
	}
	failedBefore := act("failed-before", set.Add(-time.Second), astypes.ScalingActivityStatusCodeFailed)
	failedAfter := act("failed-after", set.Add(time.Second), astypes.ScalingActivityStatusCodeFailed)
	cancelledAfter := act("cancelled-after", set.Add(2*time.Second), astypes.ScalingActivityStatusCodeCancelled)
	okAfter := act("ok-after", set.Add(3*time.Second), astypes.ScalingActivityStatusCodeSuccessful)
	for _, tc := range []struct {
		name  string
		acts  []astypes.Activity
		since time.Time
		want  string
	}{
		{"no activities", nil, set, ""},
		{"failed before the last set is history", []astypes.Activity{okAfter, failedBefore}, set, ""},
		{"cancelled never counts", []astypes.Activity{cancelledAfter}, set, ""},
		{"failed behind newer successes", []astypes.Activity{okAfter, cancelledAfter, failedAfter, failedBefore}, set, "failed-after"},
		{"never set: the whole page", []astypes.Activity{okAfter, failedBefore}, time.Time{}, "failed-before"},
		{"started at the set itself counts", []astypes.Activity{act("at", set, astypes.ScalingActivityStatusCodeFailed)}, set, "at"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if a := upstreamFailure(tc.acts, tc.since); a != nil {
				got = awssdk.ToString(a.ActivityId)
			}
			if got != tc.want {
				t.Fatalf("failure %q, want %q", got, tc.want)
			}
		})
	}
}
