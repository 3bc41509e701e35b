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

func runText(t *testing.T, text string) (*Result, *scenario.Scenario) {
	t.Helper()
	scn, err := scenario.Parse([]byte(text))
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

func expectChecks(t *testing.T, res *Result, scn *scenario.Scenario) {
	t.Helper()
	for _, c := range res.Checks(scn) {
		if !c.OK {
			t.Errorf("line %d: %s: %s", c.Line, c.What, c.Detail)
		}
	}
}

// TestRestartDropsState shows that a restart forgets the infinite backoff:
// the new process sees ng-1's sentinel as a drifted target and removes it.
func TestRestartDropsState(t *testing.T) {
	res, scn := runText(t, `apiVersion: kscale.dev/v1alpha1
kind: Scenario
duration: 30m
autoscaler: {expander: highest-priority, backoff-no-full-scale-down: true, max-node-provision-time: 7m}
nodeGroups:
  - {name: fallback, max: 5, resources: {cpu: "4", memory: 32Gi}, bootTime: 1m}
  - {name: ng-1, max: 5, resources: {cpu: "4", memory: 32Gi}, capacity: 0, labels: {zalando.org/scaling-priority: "100"}}
workloads:
  - {name: p, kind: Pods, replicas: 1, pod: {requests: {cpu: "1", memory: 24Gi}}}
events:
  - {at: 10m, restartAutoscaler: true}
expect:
  - action: {type: ScaleUp, group: ng-1, delta: 1, at: 0s}
  - action: {type: ScaleUp, group: fallback, delta: 1, at: 7m10s}
  - group: {name: ng-1, at: 9m50s, target: 1, backedOff: true}
  - group: {name: ng-1, at: 10m, target: 1, backedOff: false}
  - actions: {from: 10m, exactly: [{type: DecreaseTargetSize, group: ng-1, delta: -1}]}
  - group: {name: ng-1, target: 0, backedOff: false}
`)
	expectChecks(t, res, scn)
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
