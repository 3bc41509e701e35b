package offline

import (
	"errors"
	"testing"

	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
)

const budgetsScenario = `apiVersion: kscale.dev/v1alpha1
kind: Scenario
duration: 1m
nodeGroups:
  - {name: g, max: 5, resources: {cpu: "8", memory: 32Gi}}
nodes:
  - {name: n-1, group: g}
workloads:
  - {name: a, kind: ReplicaSet, replicas: 2, scheduled: 2, pod: {labels: {tier: front}}}
  - {name: b, kind: ReplicaSet, replicas: 1, scheduled: 1, pod: {labels: {tier: front}}, pdb: {maxUnavailable: 1}}
  - {name: c, kind: Pods, replicas: 1, scheduled: 1, pod: {labels: {tier: front}}}
  - {name: j, kind: Job, replicas: 1, scheduled: 1, pod: {labels: {tier: batch}}}
  - {name: s, kind: ReplicaSet, replicas: 2, scheduled: 2, notReady: 1, desired: 3, controller: {apiVersion: apps/v1, kind: StatefulSet}, pod: {labels: {tier: db}}}
  - {name: u, kind: ReplicaSet, replicas: 1, scheduled: 1, notReady: 1}
  - {name: r, kind: ReplicaSet, replicas: 3, scheduled: 3, podLabels: {1: {role: primary}, 3: {role: primary}}}
podDisruptionBudgets:
  - {name: front, selector: {matchLabels: {tier: front}}, minAvailable: 50%}
  - {name: front-two, selector: {matchExpressions: [{key: tier, operator: In, values: [front]}]}, minAvailable: 2}
  - {name: batch, selector: {matchLabels: {tier: batch}}, maxUnavailable: 0}
  - {name: always, selector: {matchLabels: {app: u}}, minAvailable: 1, unhealthyPodEvictionPolicy: AlwaysAllow}
  - {name: primaries, selector: {matchLabels: {role: primary}}, maxUnavailable: 1}
  - {name: db, selector: {matchExpressions: [{key: tier, operator: Exists}, {key: app, operator: NotIn, values: [a, b, c, j]}]}, maxUnavailable: 1}
`

// TestWorldBudgets checks the budgets the world gives the autoscaler:
// the shorthand and the listed ones as policy/v1 objects, with the status
// the disruption controller computes (controllers' scale for
// percentages and maxUnavailable, bare pods counting for an int
// minAvailable only, a Job's pods leaving the status unwritten).
func TestWorldBudgets(t *testing.T) {
	w, _ := newWorld(t, budgetsScenario)
	got := map[string]policyv1.PodDisruptionBudgetStatus{}
	for _, b := range w.pdbs() {
		got[b.Name] = b.Status
	}
	want := map[string]policyv1.PodDisruptionBudgetStatus{
		"b":         {CurrentHealthy: 1, DesiredHealthy: 0, ExpectedPods: 1, DisruptionsAllowed: 1},
		"front":     {CurrentHealthy: 4, DesiredHealthy: 2, ExpectedPods: 3, DisruptionsAllowed: 2},
		"front-two": {CurrentHealthy: 4, DesiredHealthy: 2, ExpectedPods: 4, DisruptionsAllowed: 2},
		"batch":     {},
		"db":        {CurrentHealthy: 1, DesiredHealthy: 2, ExpectedPods: 3, DisruptionsAllowed: 0},
		"always":    {CurrentHealthy: 0, DesiredHealthy: 1, ExpectedPods: 1, DisruptionsAllowed: 0},
		// Part of r: its ReplicaSet wants 3, so 2 are desired of the 2 selected.
		"primaries": {CurrentHealthy: 2, DesiredHealthy: 2, ExpectedPods: 3, DisruptionsAllowed: 0},
	}
	if !equality.Semantic.DeepEqual(got, want) {
		t.Fatalf("budget status:\n got %+v\nwant %+v", got, want)
	}
	for _, b := range w.pdbs() {
		if b.Name == "front" && (b.Namespace != "default" || b.Spec.MinAvailable.String() != "50%" || b.Spec.Selector.MatchLabels["tier"] != "front") {
			t.Fatalf("budget front: %+v", b)
		}
	}
	api := apiServer{w}
	tests := []struct {
		pod  string
		want error
	}{
		{"default/a-1", actuation.ErrSeveralBudgets}, // front and front-two
		{"default/j-1", actuation.ErrEvictionRefused},
		{"default/s-1", actuation.ErrEvictionRefused}, // not Ready, but db is not healthy either
		{"default/u-1", nil},                          // not Ready, and always is AlwaysAllow
		{"default/c-1", actuation.ErrSeveralBudgets},  // a bare pod counts for front-two
		{"default/b-1", actuation.ErrSeveralBudgets},  // b, front and front-two
	}
	for _, tc := range tests {
		err := api.EvictPod(t.Context(), w.cluster.pods[tc.pod], 0)
		if !errors.Is(err, tc.want) {
			t.Errorf("evicting %s: got %v, want %v", tc.pod, err, tc.want)
		}
	}
}
