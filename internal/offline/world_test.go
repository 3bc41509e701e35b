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

// newWorld parses a scenario that must be valid and builds its world.
func newWorld(t *testing.T, text string) (*World, *scenario.Scenario) {
	t.Helper()
	scn, err := scenario.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(scn)
	if err != nil {
		t.Fatal(err)
	}
	return w, scn
}

func runText(t *testing.T, text string) (*Result, *scenario.Scenario) {
	t.Helper()
	w, scn := newWorld(t, text)
	res, err := w.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return res, scn
}

func expectChecks(t *testing.T, res *Result, scn *scenario.Scenario) {
	t.Helper()
	for _, c := range res.Checks(scn) {
		if !c.OK {
			t.Errorf("line %d: %s: %s", c.Line, c.What, c.Detail)
		}
	}
}

func TestPriorityExpanderFromScenario(t *testing.T) {
	res, scn := runText(t, `apiVersion: kscale.dev/v1alpha1
kind: Scenario
duration: 1m
autoscaler: {expander: priority}
priorities:
  10: [".*"]
  50: ["^spot-"]
nodeGroups:
  - {name: on-demand, max: 5, instanceTypes: [m5.xlarge]}
  - {name: spot-a, max: 5, instanceTypes: [m5.xlarge]}
workloads:
  - {name: p, kind: ReplicaSet, replicas: 2, pod: {requests: {cpu: "3"}}}
expect:
  - actions: {exactly: [{type: ScaleUp, group: spot-a, delta: 2}]}
`)
	expectChecks(t, res, scn)
	if _, err := scenario.Parse([]byte("apiVersion: kscale.dev/v1alpha1\nkind: Scenario\nduration: 1m\nautoscaler: {expander: priority}\n")); err == nil {
		t.Fatal("priority expander without priorities accepted")
	}
}
