package scenario

import (
	"strings"
	"testing"
)

// TestParseHostile covers what issue 19 found a new or hostile user can
// write: every case is an error naming the right line and field.
func TestParseHostile(t *testing.T) {
	head := "apiVersion: kscale.dev/v1alpha1\nkind: Scenario\nduration: 10m\n"
	work := func(replicas, requests string) string {
		return "workloads:\n  - name: web\n    kind: ReplicaSet\n    replicas: " + replicas + "\n    pod: {requests: " + requests + "}\n"
	}
	tests := []struct{ name, file, want string }{
		{"fractional replicas", head + work("4.5", "{cpu: 1}"), "line 7: want a whole number, got 4.5"},
		{"fractional max", head + "nodeGroups:\n  - {name: a, max: 2.5, instanceTypes: [m5.large]}\n", "line 5: want a whole number, got 2.5"},
		{"fractional event count", head + work("1", "{cpu: 1}") + "events:\n  - {at: 1m, scaleWorkload: {workload: web, count: 1.5}}\n", "line 10: want a whole number, got 1.5"},
		{"cpu above int64", head + work("1", "{cpu: 1e16}"), "line 8: resource \"cpu\": quantity \"1e16\" is above 9e15"},
		{"memory above int64", head + work("1", "{memory: 1e19}"), "line 8: resource \"memory\": quantity \"1e19\" is above 9e15"},
		{"too many replicas", head + work("10000000", "{cpu: 1}"), "line 7: workloads \"web\": replicas bring the pods to 10000000; at most 200000"},
		{"too many pods by event", head + work("1", "{cpu: 1}") + "events:\n  - at: 1m\n    addPods: {workload: web, count: 300000}\n", "line 11: events: this event brings the pods to 300001"},
		{"scan interval 1ns", head + "autoscaler:\n  scan-interval: 1ns\n", "line 5: autoscaler: --scan-interval: must be at least 1s, got 1ns"},
		{"too many loops", "apiVersion: kscale.dev/v1alpha1\nkind: Scenario\nduration: 100h\nautoscaler:\n  scan-interval: 1s\n", "line 5: duration 100h0m0s / scan-interval 1s is 360000 loops; at most 300000"},
		{"huge group", head + "nodeGroups:\n  - {name: a, max: 10000000, instanceTypes: [m5.large]}\n", "line 5: nodeGroups \"a\": max 10000000; at most 100000"},
		{"huge start", head + "nodeGroups:\n  - {name: a, max: 30000, min: 25000, instanceTypes: [m5.large]}\n", "line 5: nodeGroups \"a\": the groups start with 25000 nodes (min, target, initial nodes); at most 20000"},
		{"target below min", head + "nodeGroups:\n  - {name: a, min: 2, max: 3, target: 1, instanceTypes: [m5.large]}\n", "line 5: nodeGroups \"a\": target: 1 outside [min 2, max 3]"},
		{"unclosed flow sequence", head + "nodeGroups: [1, 2\nworkloads: []\n", "line 5: did not find expected ',' or ']' (in the collection that starts on line 4)"},
		{"key inside a sequence", head + "nodeGroups:\n  - name: a\n  max: 2\n", "line 6: did not find expected '-' indicator (in the collection that starts on line 5)"},
		{"sequence entry inside a map", head + "autoscaler:\n  scan-interval: 10s\n  - x\n", "line 6: did not find expected key (in the collection that starts on line 5)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(tt.file))
			if err == nil || s != nil {
				t.Fatalf("want an error, got scenario %+v", s)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

// TestParseFriendly covers files that used to be rejected and are valid.
func TestParseFriendly(t *testing.T) {
	head := "apiVersion: kscale.dev/v1alpha1\nkind: Scenario\nduration: 10m\n"
	t.Run("min without target", func(t *testing.T) {
		s, err := Parse([]byte(head + "nodeGroups:\n  - {name: a, min: 2, max: 3, instanceTypes: [m5.large]}\n"))
		if err != nil {
			t.Fatal(err)
		}
		if got := s.NodeGroups[0].InitialTarget(); got != 2 {
			t.Fatalf("initial target %d, want the min 2", got)
		}
	})
	t.Run("alias in affinity to an anchor elsewhere", func(t *testing.T) {
		s, err := Parse([]byte(head + `workloads:
  - name: web
    kind: Deployment
    replicas: 2
    pod:
      labels: &web {tier: web}
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            - topologyKey: kubernetes.io/hostname
              labelSelector: {matchLabels: *web}
`))
		if err != nil {
			t.Fatal(err)
		}
		terms := s.Workloads[0].Pod.Affinity.Value.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		if len(terms) != 1 || terms[0].LabelSelector.MatchLabels["tier"] != "web" {
			t.Fatalf("alias not resolved: %+v", terms)
		}
	})
}
