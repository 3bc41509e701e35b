package offline

import (
	"os"
	"testing"

	"github.com/kscale/kscale/internal/scenario"
)

func runFile(t *testing.T, path string) (*Result, *scenario.Scenario) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	scn, err := scenario.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(scn)
	if err != nil {
		t.Fatal(err)
	}
	res, err := w.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return res, scn
}

func TestS1(t *testing.T) {
	res, scn := runFile(t, "../../test/scenarios/s1-priority-cascade.yaml")
	for _, e := range res.Events {
		if e.IsAction() || e.Type == "BackoffStarted" || e.Type == "BackoffCleared" || e.Type == "LoopError" || e.Type == "EventError" {
			t.Logf("%v %s %s %d %v %s %s", e.At, e.Type, e.Group, e.Delta, e.Nodes, e.Reason, e.Message)
		}
	}
	for _, c := range res.Checks(scn) {
		if !c.OK {
			t.Errorf("line %d: %s: %s", c.Line, c.What, c.Detail)
		}
	}
}
