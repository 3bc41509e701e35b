package scenario

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseValid(t *testing.T) {
	data, err := os.ReadFile("testdata/valid.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(data)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if s.Duration.Duration != 30*time.Minute || len(s.NodeGroups) != 2 || len(s.Events) != 4 || len(s.Expect) != 4 {
		t.Fatalf("unexpected scenario: %+v", s)
	}
	if s.Options.MaxNodeProvisionTime != 7*time.Minute || !s.Options.BackoffNoFullScaleDown ||
		strings.Join(s.Options.Expanders, ",") != "highest-priority,least-waste" {
		t.Fatalf("options not applied: %+v", s.Options)
	}
	if s.Options.ScanInterval != 10*time.Second {
		t.Fatalf("defaults not kept: scan interval %v", s.Options.ScanInterval)
	}
	if s.NodeGroups[0].Capacity.Limit != 3 || s.NodeGroups[0].Taints.Value[0].Key != "dedicated" {
		t.Fatalf("group fields: %+v", s.NodeGroups[0])
	}
	aff := s.Workloads[0].Pod.Affinity.Value.NodeAffinity
	if aff == nil || aff.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0].Values[0] != "eu-central-1a" {
		t.Fatalf("affinity not decoded: %+v", aff)
	}
	if s.Workloads[0].Namespace != "default" || s.Expect[1].Line != 51 {
		t.Fatalf("namespace %q, expect line %d", s.Workloads[0].Namespace, s.Expect[1].Line)
	}
}

func TestParseErrors(t *testing.T) {
	head := "apiVersion: kscale.dev/v1alpha1\nkind: Scenario\nduration: 10m\n"
	group := "nodeGroups:\n  - name: ng-1\n    max: 3\n    instanceTypes: [m5.large]\n"
	tests := []struct {
		name, file, want string
	}{
		{"unknown top field", head + "durration: 5m\n", "line 4: unknown field durration"},
		{"unknown nested field", head + group + "    maxx: 4\n", "line 8: unknown field maxx"},
		{"bad duration", "apiVersion: kscale.dev/v1alpha1\nkind: Scenario\nduration: soon\n", "line 3: bad duration"},
		{"wrong kind", "apiVersion: kscale.dev/v1alpha1\nkind: Scene\nduration: 1m\n", "line 2: kind"},
		{"missing duration", "apiVersion: kscale.dev/v1alpha1\nkind: Scenario\n", "duration: must be positive"},
		{"bad type", head + "nodeGroups:\n  - name: ng-1\n    max: lots\n", "line 6: cannot unmarshal"},
		{"unknown instance type", head + "nodeGroups:\n  - name: ng-1\n    max: 3\n    instanceTypes: [x9.huge]\n", "line 7: nodeGroups \"ng-1\": unknown instance type"},
		{"bad quantity", head + "nodeGroups:\n  - name: ng-1\n    max: 3\n    resources: {cpu: lots, memory: 1Gi}\n", "line 7: resource \"cpu\": bad quantity"},
		{"unknown option", head + "autoscaler:\n  scan-intervall: 5s\n", "line 5: autoscaler: --scan-intervall: unknown option"},
		{"invalid option", head + "autoscaler:\n  expander: cheapest\n", "line 5: autoscaler: --expander"},
		{"bad option value", head + "autoscaler:\n  scan-interval: often\n", "line 5: autoscaler: --scan-interval"},
		{"unknown group in event", head + group + "events:\n  - at: 1m\n    setTarget: {group: ng-9, target: 0}\n", "line 10: events: unknown node group \"ng-9\""},
		{"two actions", head + group + "events:\n  - at: 1m\n    removeGroup: ng-1\n    clearCloudError: ng-1\n", "line 9: events: set exactly one action"},
		{"unknown k8s field", head + group + "    taints: [{key: a, effekt: NoSchedule}]\n", "line 8: unknown field \"effekt\""},
		{"event after end", head + group + "events:\n  - at: 11m\n    removeGroup: ng-1\n", "line 9: events.at"},
		{"bad expectation type", head + "expect:\n  - action: {type: Scale}\n", "line 5: type: want one of"},
		{"two documents", head + "---\nkind: x\n", "only one YAML document"},
		{"not a map", "- a\n- b\n", "line 1: want a YAML map"},
		{"syntax", "a: [\n", "line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(tt.file))
			if err == nil || s != nil {
				t.Fatalf("want an error, got scenario %+v", s)
			}
			if !IsParseError(err) {
				t.Fatalf("want a ParseError, got %T %v", err, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}
