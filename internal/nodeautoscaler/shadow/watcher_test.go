package shadow

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kscale/kscale/internal/nodeautoscaler/dryrun"
)

func TestWatcherCountsLogsAndRecords(t *testing.T) {
	reg := prometheus.NewRegistry()
	var rec bytes.Buffer
	w, err := NewWatcher(WatcherConfig{Comparison: Config{Window: 10 * time.Second}, Registerer: reg, Record: &rec})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	w.Decided(ctx, dryrun.Decision{Time: at(0), Kind: dryrun.DecisionScaleUp, Group: "g1", Pods: podRef("p")})
	w.Observe(Observation{Time: at(1), Kind: ObsScaleUp, Subject: "ns/p", Groups: []string{"g1"}})
	w.Decided(ctx, dryrun.Decision{Time: at(0), Kind: dryrun.DecisionScaleDown, Nodes: []string{"n1"}, Reason: "empty"})
	if err := w.AfterLoop(ctx, at(2), dryrun.LoopView{Targets: map[string]int{"g1": 1}}); err != nil {
		t.Fatal(err)
	}
	if err := w.AfterLoop(ctx, at(20), dryrun.LoopView{Targets: map[string]int{"g1": 1}}); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ToFloat64(w.verdicts.WithLabelValues(KindScaleUp, "agree", ReasonSameGroup)); got != 1 {
		t.Errorf("agreements = %v, want 1", got)
	}
	if got := testutil.ToFloat64(w.verdicts.WithLabelValues(KindScaleDown, "disagree", ReasonUpstreamKeptNode)); got != 1 {
		t.Errorf("upstream_kept_node = %v, want 1", got)
	}
	vs, err := ParseRecord(strings.NewReader(rec.String()))
	if err != nil || len(vs) != 2 {
		t.Fatalf("record %q: %d verdicts, %v; want 2", rec.String(), len(vs), err)
	}
	if err := w.ObserveStatus("nodeGroups: ["); err == nil {
		t.Error("ObserveStatus of bad YAML: no error")
	}
}
