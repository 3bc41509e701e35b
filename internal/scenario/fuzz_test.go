package scenario

import (
	"os"
	"testing"
)

// FuzzParse checks that no input makes Parse panic and that it returns
// either a scenario or a ParseError, never both or neither.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"testdata/valid.yaml", "testdata/storage.yaml", "testdata/pdbs.yaml"} {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("apiVersion: kscale.dev/v1alpha1\nkind: Scenario\nduration: 1m\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Add([]byte("apiVersion: kscale.dev/v1alpha1\nkind: Scenario\nduration: 1m\nseed: 3\nworkloads:\n  - {name: w, kind: Pods}\n" +
		"expect:\n  - event: {type: BackoffStarted, reason: timeout, atLeast: 1, atMost: 2}\n" +
		"  - maxUnavailable: {workload: w, from: 10s, atMost: 0}\n  - zoneNodes: {zone: a, count: 1}\n" +
		"  - action: {type: ScaleUp, count: 1, atMost: 0}\n"))
	f.Add([]byte("apiVersion: kscale.dev/v1alpha1\nkind: Scenario\nduration: 1m\nnodeGroups:\n  - {name: g, max: 3, instanceTypes: [m5.large]}\n" +
		"nodes:\n  - {name: n-1, group: g}\nworkloads:\n  - {name: w, kind: ReplicaSet, replicas: 2, scheduled: 1, on: {n-1: 1}, controller: {apiVersion: apps/v1, kind: StatefulSet, missing: true}}\n" +
		"  - {name: t, kind: Pods, replicas: 1, scheduled: 1, on: {n-1: 1}, terminating: 30s}\n"))
	f.Add([]byte("apiVersion: kscale.dev/v1alpha1\nkind: Scenario\nduration: 1m\nworkloads:\n  - name: w\n    kind: Pods\n    replicas: 1\n" +
		"    pod:\n      annotations: {cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes: a}\n" +
		"      volumes: [{name: a, type: emptyDir}, {name: b, type: hostPath}]\n"))
	f.Add([]byte("apiVersion: kscale.dev/v1alpha1\nkind: Scenario\nduration: 1m\npodDisruptionBudgets:\n" +
		"  - {name: a, minAvailable: 10%, selector: {matchLabels: {x: y}, matchExpressions: [{key: z, operator: NotIn, values: [w]}]}}\n" +
		"  - {name: b, namespace: n, maxUnavailable: 0, selector: {matchExpressions: [{key: z, operator: Bogus}]}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if (s == nil) == (err == nil) {
			t.Fatalf("scenario %v and error %v", s, err)
		}
		if err != nil && !IsParseError(err) {
			t.Fatalf("error is not a ParseError: %T %v", err, err)
		}
	})
}
