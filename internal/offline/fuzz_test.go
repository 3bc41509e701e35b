package offline

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kscale/kscale/internal/scenario"
)

// FuzzWorld checks that no parsable scenario makes the world or the
// autoscaler panic; runs are cut to two simulated minutes.
func FuzzWorld(f *testing.F) {
	files, _ := filepath.Glob("../../test/scenarios/s[1-7]*.yaml")
	files = append(files, "../scenario/testdata/valid.yaml", "../scenario/testdata/storage.yaml", "../../test/scenarios/zonal-volumes-pick-the-group.yaml")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		scn, err := scenario.Parse(data)
		if err != nil {
			return
		}
		scn.Duration.Duration = min(scn.Duration.Duration, 2*time.Minute)
		for _, g := range scn.NodeGroups {
			if g.Max > 100 {
				return // keep each run small
			}
		}
		for _, n := range scn.Nodes {
			if n.Count > 50 {
				return
			}
		}
		for _, wl := range scn.Workloads {
			if wl.Replicas > 200 {
				return
			}
		}
		for _, e := range scn.Events {
			if c := e.AddPods; c != nil && c.Count > 200 {
				return
			}
			if c := e.ScaleWorkload; c != nil && c.Count > 200 {
				return
			}
		}
		w, err := New(scn)
		if err != nil {
			return
		}
		res, err := w.Run(t.Context())
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		if checks := res.Checks(scn); len(checks) < len(scn.Expect) {
			t.Fatalf("%d checks for %d expectations", len(checks), len(scn.Expect))
		}
	})
}
