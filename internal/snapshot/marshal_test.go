package snapshot

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kscale/kscale/internal/scenario"
)

// TestMarshalRoundTrip writes every field a snapshot can set and parses it
// back unchanged.
func TestMarshalRoundTrip(t *testing.T) {
	boot := scenario.Duration{Duration: 90 * time.Second}
	seconds := int64(300)
	groups := []scenario.NodeGroup{{
		Name: "ng", Min: 1, Max: 4, Target: 2, InstanceTypes: []string{"m5.large", "m5.xlarge"},
		Reserved: scenario.Resources{"cpu": resource.MustParse("100m")}, Zone: "z1", Labels: map[string]string{"a": "true", "b": "1"},
		Taints:   scenario.K8s[[]corev1.Taint]{Value: []corev1.Taint{{Key: "k", Value: "v", Effect: corev1.TaintEffectNoSchedule}}},
		BootTime: &boot, Capacity: &scenario.Capacity{Limit: 3},
		StockoutError:      &scenario.CloudError{Class: "out-of-resources", Code: "InsufficientCapacity", Message: "no: really"},
		AutoscalingOptions: map[string]string{"scaledownutilizationthreshold": "0.9", "zeroormaxnodescaling": "true"}, PricePerHour: 0.25,
	}, {
		Name: "inline", Max: 1, Resources: scenario.Resources{"cpu": resource.MustParse("4"), "memory": resource.MustParse("16Gi"), "nvidia.com/gpu": resource.MustParse("1")},
		Capacity: &scenario.Capacity{Limit: -1},
	}}
	workloads := []scenario.Workload{{
		Name: "w", Namespace: "ns", Kind: "ReplicaSet", Replicas: 3, Scheduled: 1, On: map[string]int{"i-1": 1},
		Controller: &scenario.Controller{APIVersion: "apps/v1", Kind: "StatefulSet", Missing: true},
		Pod: scenario.PodTemplate{
			Requests: scenario.Resources{"cpu": resource.MustParse("1500m")}, Limits: scenario.Resources{"memory": resource.MustParse("1Gi")},
			Labels: map[string]string{"app": "w"}, Annotations: map[string]string{"x": "multi\nline"}, NodeSelector: map[string]string{"a": "true"},
			Affinity: &scenario.K8s[corev1.Affinity]{Value: corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 10, Preference: corev1.NodeSelectorTerm{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "a", Operator: corev1.NodeSelectorOpIn, Values: []string{"true"}}}}}}}}},
			Tolerations: scenario.K8s[[]corev1.Toleration]{Value: []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists, TolerationSeconds: &seconds}}},
			TopologySpreadConstraints: scenario.K8s[[]corev1.TopologySpreadConstraint]{Value: []corev1.TopologySpreadConstraint{{
				MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.DoNotSchedule}}},
			Priority: -5,
		},
		PDB: &scenario.PDB{MinAvailable: "50%"},
	}, {
		Name: "victim", Namespace: "ns", Kind: "Pods", Replicas: 1, Scheduled: 1, On: map[string]int{"i-1": 1},
		Terminating: &scenario.Duration{Duration: 25 * time.Second},
	}}
	in := &Result{
		Scenario: &scenario.Scenario{APIVersion: scenario.APIVersion, Kind: scenario.Kind, Name: "n: x", Description: "d",
			Duration: scenario.Duration{Duration: time.Hour}, Priorities: map[int][]string{-1: {"^a$"}},
			Autoscaler: scenario.Settings{Values: map[string]string{"scale-down-unneeded-time": "0s"}},
			NodeGroups: groups, Nodes: []scenario.Node{{Name: "i-1", Group: "ng", NotReady: true,
				Taints: scenario.K8s[[]corev1.Taint]{Value: []corev1.Taint{{Key: "x", Effect: corev1.TaintEffectNoExecute}}}}},
			Workloads: workloads},
		Header: []string{"line one", "line\ntwo"},
		Notes:  []string{"a note"},
	}
	data, err := Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "# line one\n# line two\n") || !strings.Contains(string(data), "# - a note\n") {
		t.Errorf("header missing or malformed:\n%s", data)
	}
	out, err := scenario.Parse(data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	out.Options = in.Scenario.Options
	out.Autoscaler.Lines = in.Scenario.Autoscaler.Lines // line numbers are the parser's
	if !equality.Semantic.DeepEqual(out, in.Scenario) {
		t.Errorf("round trip changed the scenario:\n got %+v\nwant %+v\n%s", out, in.Scenario, data)
	}
}
