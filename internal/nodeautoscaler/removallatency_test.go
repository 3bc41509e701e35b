package nodeautoscaler

import (
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

func TestRemovalLatencyTracker(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	unneeded := func(name string, ready bool) scaledown.Candidate {
		return scaledown.Candidate{Node: fixture.Node(name), Ready: ready, UnneededSince: t0}
	}
	blocked := func(name string, r scaledown.Reason) scaledown.Blocked {
		return scaledown.Blocked{Node: name, Reason: r}
	}
	type round struct {
		at       time.Duration
		unneeded []scaledown.Candidate
		blocked  []scaledown.Blocked
		started  []string
		want     []removalLatency
	}
	cases := []struct {
		name   string
		rounds []round
	}{
		{"removed 5m after its unneeded time", []round{
			{at: 0, unneeded: []scaledown.Candidate{unneeded("a", true)}},
			{at: 15 * time.Minute, unneeded: []scaledown.Candidate{unneeded("a", true)}, started: []string{"a"},
				want: []removalLatency{{Deleted: true, DelayReason: "none", Latency: 5 * time.Minute}}},
			// Being deleted, it is no longer unneeded: nothing more.
			{at: 16 * time.Minute, blocked: []scaledown.Blocked{blocked("a", scaledown.ReasonBeingDeleted)}},
		}},
		{"needed again before its unneeded time: no observation", []round{
			{at: 0, unneeded: []scaledown.Candidate{unneeded("a", true)}},
			{at: 5 * time.Minute, blocked: []scaledown.Blocked{blocked("a", scaledown.ReasonHighUtilization)}},
		}},
		{"kept at the group's minimum, then needed again", []round{
			{at: 0, unneeded: []scaledown.Candidate{unneeded("a", true)}},
			{at: 20 * time.Minute, blocked: []scaledown.Blocked{blocked("a", scaledown.ReasonMinSize)}},
			{at: 30 * time.Minute, unneeded: []scaledown.Candidate{unneeded("a", true)}},
			{at: 40 * time.Minute, blocked: []scaledown.Blocked{blocked("a", scaledown.ReasonNoPlaceToMove)},
				want: []removalLatency{{Deleted: false, DelayReason: "NodeGroupMinSizeReached", Latency: 30 * time.Minute}}},
		}},
		{"an unready node waits for the unready time", []round{
			{at: 0, unneeded: []scaledown.Candidate{unneeded("a", false)}},
			{at: 25 * time.Minute, unneeded: []scaledown.Candidate{unneeded("a", false)}, started: []string{"a"},
				want: []removalLatency{{Deleted: true, DelayReason: "none", Latency: 5 * time.Minute}}},
		}},
		{"a blocked node never unneeded is not followed", []round{
			{at: 0, blocked: []scaledown.Blocked{blocked("a", scaledown.ReasonMinSize)}},
			{at: time.Hour, started: []string{"a"}},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := newRemovalLatencyTracker()
			for i, r := range c.rounds {
				got := tr.round(latencyRound{plan: scaledown.Plan{Unneeded: r.unneeded, Blocked: r.blocked}, started: r.started,
					unneededTime: 10 * time.Minute, unreadyTime: 20 * time.Minute, now: t0.Add(r.at)})
				if !slices.Equal(got, r.want) {
					t.Errorf("round %d: %+v, want %+v", i, got, r.want)
				}
			}
		})
	}
}

// TestRemovalLatencyAfterLoops runs loops with the flag: an empty node
// unneeded for a minute is deleted at the second loop, two minutes in.
func TestRemovalLatencyAfterLoops(t *testing.T) {
	for _, enabled := range []bool{true, false} {
		a, _, now := sdLoop(t, true)
		cfg := a.cfg
		cfg.Options.NodeRemovalLatencyTrackingEnabled = enabled
		reg := prometheus.NewRegistry()
		cfg.Registerer = reg
		a, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, at := range []time.Duration{0, 2 * time.Minute} {
			if err := a.RunOnce(t.Context(), now.Add(at)); err != nil {
				t.Fatal(err)
			}
		}
		if !enabled {
			if n := testutil.CollectAndCount(a.metrics.removalLatency); n != 0 {
				t.Errorf("without the flag: %d node_removal_latency_seconds series, want none", n)
			}
			continue
		}
		h := histogramOf(t, a.metrics.removalLatency, "true", "none")
		if h.GetSampleCount() != 1 || h.GetSampleSum() != 60 {
			t.Errorf("node_removal_latency_seconds{deleted=true,delay_reason=none}: count %d sum %v, want 1 and 60",
				h.GetSampleCount(), h.GetSampleSum())
		}
	}
}
