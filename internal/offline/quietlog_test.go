package offline

import (
	"os"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/scenario"
)

// TestSimulatedAutoscalerLogsOneLevelQuieter checks that a simulation
// writes none of the autoscaler's default-level lines at verbosity 0 (its
// decisions are the timeline), and writes them at verbosity 1.
func TestSimulatedAutoscalerLogsOneLevelQuieter(t *testing.T) {
	data, err := os.ReadFile("../../test/scenarios/s1-priority-cascade.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		verbosity int
		wantLines bool
	}{{0, false}, {1, true}} {
		scn, err := scenario.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		w, err := New(scn)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		logger := funcr.New(func(prefix, args string) { lines = append(lines, args) }, funcr.Options{Verbosity: tt.verbosity})
		res, err := w.Run(klog.NewContext(t.Context(), logger))
		if err != nil {
			t.Fatal(err)
		}
		increases := 0
		for _, e := range res.Events {
			if e.Type == "ScaleUp" {
				increases++
			}
		}
		logged := 0
		for _, l := range lines {
			if strings.Contains(l, "Scale-up: increasing node group size") {
				logged++
			}
		}
		if increases == 0 {
			t.Fatal("the scenario scaled up nothing; the test needs one that does")
		}
		if got := logged > 0; got != tt.wantLines {
			t.Errorf("verbosity %d: %d increase lines logged for %d increases, want lines: %v", tt.verbosity, logged, increases, tt.wantLines)
		}
	}
}
