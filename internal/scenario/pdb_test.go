package scenario

import (
	"os"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// parseFile parses a testdata file that must be valid.
func parseFile(t *testing.T, path string) *Scenario {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(data)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return s
}

// expectParseError checks that file is refused with a ParseError
// containing want.
func expectParseError(t *testing.T, file, want string) {
	t.Helper()
	s, err := Parse([]byte(file))
	if err == nil || s != nil {
		t.Fatalf("want an error, got scenario %+v", s)
	}
	if !IsParseError(err) || !strings.Contains(err.Error(), want) {
		t.Fatalf("want a ParseError containing %q, got %T %v", want, err, err)
	}
}

func TestParseBudgets(t *testing.T) {
	s := parseFile(t, "testdata/pdbs.yaml")
	b := s.PodDisruptionBudgets
	if len(b) != 3 || b[0].Namespace != "default" || b[1].UnhealthyPodEvictionPolicy != "AlwaysAllow" || b[0].MinAvailable != "50%" || b[0].Selector.Value.MatchLabels["tier"] != "front" {
		t.Fatalf("budgets: %+v", b)
	}
	if e := b[1].Selector.Value.MatchExpressions; b[1].Namespace != "shop" || len(e) != 2 || e[1].Operator != metav1.LabelSelectorOpDoesNotExist {
		t.Fatalf("second budget: %+v", b[1])
	}
	if b[2].Selector == nil || len(b[2].Selector.Value.MatchLabels)+len(b[2].Selector.Value.MatchExpressions) != 0 {
		t.Fatalf("empty selector: %+v", b[2])
	}
	short, ok := s.Workloads[0].Budget()
	if !ok || short.Name != "web" || short.Namespace != "default" || short.Selector.Value.MatchLabels["app"] != "web" || short.MaxUnavailable != "1" {
		t.Fatalf("shorthand budget: %+v", short)
	}
	if s.Workloads[0].PodLabels[1]["role"] != "primary" {
		t.Fatalf("pod labels: %+v", s.Workloads[0].PodLabels)
	}
	if _, ok := s.Workloads[1].Budget(); ok {
		t.Fatal("workload api has no pdb")
	}
}

func TestParseBudgetErrors(t *testing.T) {
	head := "apiVersion: kscale.dev/v1alpha1\nkind: Scenario\nduration: 10m\n"
	web := "workloads:\n  - {name: web, kind: ReplicaSet, replicas: 1, pdb: {minAvailable: 1}}\n"
	tests := []struct {
		name, file, want string
	}{
		{"bad operator", head + "podDisruptionBudgets:\n  - name: a\n    minAvailable: 1\n    selector:\n      matchExpressions: [{key: x, operator: Has}]\n",
			"line 7: podDisruptionBudgets[0].selector.matchExpressions[0].operator: Invalid value: \"Has\": not a valid selector operator"},
		{"In without values", head + "podDisruptionBudgets:\n  - {name: a, minAvailable: 1, selector: {matchExpressions: [{key: x, operator: In}]}}\n",
			"podDisruptionBudgets[0].selector.matchExpressions[0].values: Required value"},
		{"Exists with values", head + "podDisruptionBudgets:\n  - {name: a, minAvailable: 1, selector: {matchExpressions: [{key: x, operator: Exists, values: [y]}]}}\n",
			"podDisruptionBudgets[0].selector.matchExpressions[0].values: Forbidden"},
		{"bad label value", head + "podDisruptionBudgets:\n  - {name: a, minAvailable: 1, selector: {matchLabels: {x: \"a b\"}}}\n",
			"podDisruptionBudgets[0].selector.matchLabels: Invalid value: \"a b\""},
		{"unknown selector field", head + "podDisruptionBudgets:\n  - {name: a, minAvailable: 1, selector: {matchLabel: {x: y}}}\n",
			"line 5: unknown field \"matchLabel\""},
		{"no selector", head + "podDisruptionBudgets:\n  - {name: a, minAvailable: 1}\n", "line 5: podDisruptionBudgets[0].selector: required"},
		{"both values", head + "podDisruptionBudgets:\n  - {name: a, minAvailable: 1, maxUnavailable: 1, selector: {}}\n",
			"line 5: podDisruptionBudgets[0]: needs exactly one of minAvailable and maxUnavailable"},
		{"neither value", head + "podDisruptionBudgets:\n  - {name: a, selector: {}}\n", "podDisruptionBudgets[0]: needs exactly one"},
		{"bad percent", head + "podDisruptionBudgets:\n  - {name: a, minAvailable: 150%, selector: {}}\n",
			"line 5: podDisruptionBudgets[0].minAvailable: \"150%\": a percentage is at most 100%"},
		{"negative", head + "podDisruptionBudgets:\n  - name: a\n    selector: {}\n    maxUnavailable: -1\n",
			"line 7: podDisruptionBudgets[0].maxUnavailable: \"-1\": want a non-negative int"},
		{"bad name", head + "podDisruptionBudgets:\n  - {name: A_b, minAvailable: 1, selector: {}}\n", "podDisruptionBudgets[0].name: \"A_b\" is not a valid name"},
		{"bad namespace", head + "podDisruptionBudgets:\n  - {name: a, namespace: x.y, minAvailable: 1, selector: {}}\n",
			"podDisruptionBudgets[0].namespace: \"x.y\" is not a valid namespace"},
		{"twice", head + "podDisruptionBudgets:\n  - {name: a, minAvailable: 1, selector: {}}\n  - {name: a, namespace: default, minAvailable: 1, selector: {}}\n",
			"line 6: podDisruptionBudgets[1].name: \"a\" is defined twice in namespace default"},
		{"shorthand's name", head + web + "podDisruptionBudgets:\n  - {name: web, minAvailable: 1, selector: {}}\n",
			"line 7: podDisruptionBudgets[0].name: \"web\" is defined twice in namespace default (a workload's pdb is named after the workload)"},
		{"bad eviction policy", head + "podDisruptionBudgets:\n  - {name: a, minAvailable: 1, selector: {}, unhealthyPodEvictionPolicy: Never}\n",
			"line 5: podDisruptionBudgets[0].unhealthyPodEvictionPolicy: must be one of [IfHealthyBudget AlwaysAllow], got \"Never\""},
		{"pod number", head + "workloads:\n  - {name: w, kind: ReplicaSet, replicas: 2, podLabels: {3: {role: a}}}\n",
			"line 5: workloads \"w\": podLabels: pod 3: want a pod number from 1 to replicas (2)"},
		{"pod label", head + "workloads:\n  - name: w\n    kind: ReplicaSet\n    replicas: 2\n    podLabels:\n      1: {\"a b\": x}\n",
			"line 9: workloads \"w\": podLabels: pod 1: \"a b\"=\"x\" is not a valid label"},
		{"pod app label", head + "workloads:\n  - {name: w, kind: ReplicaSet, replicas: 2, podLabels: {1: {app: x}}}\n",
			"podLabels: pod 1: app is the workload's name"},
		{"daemonset pod labels", head + "workloads:\n  - {name: w, kind: DaemonSet, podLabels: {1: {a: x}}}\n",
			"podLabels: a DaemonSet's pods are named by node"},
		{"bad shorthand", head + "workloads:\n  - {name: web, kind: ReplicaSet, replicas: 1, pdb: {minAvailable: lots}}\n",
			"line 5: workloads[0] \"web\": pdb.minAvailable: \"lots\": want a non-negative int"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { expectParseError(t, tc.file, tc.want) })
	}
	ok := head + web + "podDisruptionBudgets:\n  - {name: web, namespace: other, minAvailable: 1, selector: {}}\n"
	if _, err := Parse([]byte(ok)); err != nil {
		t.Fatalf("the same name in another namespace: %v", err)
	}
}
