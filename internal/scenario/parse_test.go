package scenario

import (
	"strings"
	"testing"
	"time"
)

func TestParseValid(t *testing.T) {
	s := parseFile(t, "testdata/valid.yaml")
	if s.Duration.Duration != 30*time.Minute || s.Seed != 7 || len(s.NodeGroups) != 2 || len(s.Events) != 4 || len(s.Expect) != 9 {
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
	if v := s.Workloads[0].Pod.Volumes; len(v) != 1 || v[0] != (Volume{Name: "scratch", Type: VolumeEmptyDir}) {
		t.Fatalf("volumes not decoded: %+v", v)
	}
	if s.Workloads[0].Namespace != "default" || s.Expect[1].Line != 53 {
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
		{"unknown instance type", head + "nodeGroups:\n  - name: ng-1\n    max: 3\n    instanceTypes: [x9.huge]\n", "line 7: nodeGroups \"ng-1\": instanceTypes: unknown instance type"},
		{"bad quantity", head + "nodeGroups:\n  - name: ng-1\n    max: 3\n    resources: {cpu: lots, memory: 1Gi}\n", "line 7: resource \"cpu\": bad quantity"},
		{"unknown option", head + "autoscaler:\n  scan-intervall: 5s\n", "line 5: autoscaler: --scan-intervall: unknown option"},
		{"invalid option", head + "autoscaler:\n  expander: cheapest\n", "line 5: autoscaler: --expander"},
		{"grpc expander", head + "autoscaler:\n  expander: grpc\n  grpc-expander-url: e:1\n  grpc-expander-cert: /ca.crt\n", "line 4: autoscaler: the grpc expander"},
		{"bad option value", head + "autoscaler:\n  scan-interval: often\n", "line 5: autoscaler: --scan-interval"},
		{"unknown group in event", head + group + "events:\n  - at: 1m\n    setTarget: {group: ng-9, target: 0}\n", "line 10: events: unknown node group \"ng-9\""},
		{"two actions", head + group + "events:\n  - at: 1m\n    removeGroup: ng-1\n    clearCloudError: ng-1\n", "line 9: events: set exactly one action"},
		{"unknown k8s field", head + group + "    taints: [{key: a, effekt: NoSchedule}]\n", "line 8: unknown field \"effekt\""},
		{"annotation without key", head + group + "events:\n  - at: 1m\n    annotateNode: {node: n-1}\n", "line 10: annotateNode: node and key are required"},
		{"bad annotation key", head + group + "events:\n  - at: 1m\n    unannotateNode: {node: n-1, key: \"a b\"}\n", "unannotateNode: key \"a b\" is not a valid annotation key"},
		{"unknown failing call", head + group + "events:\n  - at: 1m\n    setCloudError: {group: ng-1, call: delete}\n", "line 10: call: want create or increase, got \"delete\""},
		{"increase failing out of resources", head + group + "events:\n  - at: 1m\n    setCloudError:\n      group: ng-1\n      call: increase\n      class: out-of-resources\n",
			"line 13: class: a failing increase call is a cloud API error"},
		{"bad zero-or-max value", head + group + "    autoscalingOptions: {zeroormaxnodescaling: sometimes}\n", "line 8: nodeGroups \"ng-1\": autoscalingOptions: autoscalingOptions.zeroormaxnodescaling: \"sometimes\": not a boolean"},
		{"event after end", head + group + "events:\n  - at: 11m\n    removeGroup: ng-1\n", "line 9: events.at"},
		{"bad expectation type", head + "expect:\n  - action: {type: Scale}\n", "line 5: type: want one of"},
		{"count with atMost", head + "expect:\n  - action: {type: ScaleUp, count: 1, atMost: 2}\n", "line 5: expect.action: count excludes atMost and atLeast"},
		{"negative atLeast", head + "expect:\n  - event: {type: ScaleUp, atLeast: -1}\n", "line 5: expect.event: atLeast must not be negative"},
		{"atLeast above atMost", head + "expect:\n  - event: {type: ScaleUp, atLeast: 3, atMost: 2}\n", "line 5: expect.event: atLeast 3 is above atMost 2"},
		{"unknown event type", head + "expect:\n  - event:\n      group: ng-1\n      type: ScaleUpp\n", "line 7: expect.event: type: want one of"},
		{"event at and from", head + "expect:\n  - event: {type: NodeReady, at: 1m, from: 1m}\n", "line 5: expect.event: at excludes from/to"},
		{"event window", head + "expect:\n  - event: {type: NodeReady, from: 2m, to: 1m}\n", "line 5: window: to is before from"},
		{"unknown event field", head + "expect:\n  - event: {type: NodeReady, reasn: x}\n", "line 5: unknown field reasn"},
		{"unavailable unknown workload", head + "expect:\n  - maxUnavailable:\n      workload: web\n      atMost: 1\n", "line 6: expect.maxUnavailable: unknown workload \"web\""},
		{"unavailable without atMost", head + "workloads:\n  - {name: web, kind: ReplicaSet}\nexpect:\n  - maxUnavailable: {workload: web}\n", "line 7: expect.maxUnavailable: atMost is required"},
		{"unavailable of a DaemonSet", head + "workloads:\n  - {name: ds, kind: DaemonSet}\nexpect:\n  - maxUnavailable: {workload: ds, atMost: 0}\n", "line 7: expect.maxUnavailable: workload \"ds\" is a DaemonSet"},
		{"zone without bounds", head + "expect:\n  - zoneNodes: {zone: a}\n", "line 5: expect.zoneNodes: set count, atMost or atLeast"},
		{"zone without zone", head + "expect:\n  - zoneNodes: {count: 1}\n", "line 5: expect.zoneNodes: zone is required"},
		{"negative registered", head + "expect:\n  - group: {name: ng-1, registered: -1}\n", "line 5: expect.group: target, ready and registered must not be negative"},
		{"two expectations", head + "expect:\n  - pendingPods: {count: 0}\n    zoneNodes: {zone: a, count: 1}\n", "line 5: expect: set exactly one of"},
		{"negative seed", head + "seed: -1\n", "line 4: cannot unmarshal"},
		{"two documents", head + "---\nkind: x\n", "only one YAML document"},
		{"not a map", "- a\n- b\n", "line 1: want a YAML map"},
		{"negative price", head + group + "    pricePerHour: -0.1\n", "line 8: nodeGroups \"ng-1\": pricePerHour: must be a number from 0 to 1e+06"},
		{"NaN price", head + group + "    pricePerHour: .nan\n", "line 8: nodeGroups \"ng-1\": pricePerHour: must be a number"},
		{"huge price", head + group + "    pricePerHour: 1e300\n", "line 8: nodeGroups \"ng-1\": pricePerHour: must be a number"},
		{"syntax", "a: [\n", "line"},
		{"on an unknown node", head + group + "nodes:\n  - {name: n-1, group: ng-1}\nworkloads:\n  - {name: web, kind: ReplicaSet, replicas: 2, scheduled: 2, on: {n-2: 2}}\n",
			"line 11: workloads \"web\": on: \"n-2\" is not a named node"},
		{"on sums short", head + group + "nodes:\n  - {name: n-1, group: ng-1}\nworkloads:\n  - {name: web, kind: ReplicaSet, replicas: 2, scheduled: 2, on: {n-1: 1}}\n",
			"workloads \"web\": on: the counts sum to 1, want scheduled (2)"},
		{"terminating replicas", head + group + "nodes:\n  - {name: n-1, group: ng-1}\nworkloads:\n  - {name: web, kind: ReplicaSet, replicas: 1, scheduled: 1, on: {n-1: 1}, terminating: 30s}\n",
			"workloads \"web\": terminating is only for bare pods"},
		{"controller without kind", head + "workloads:\n  - {name: web, kind: ReplicaSet, replicas: 1, controller: {apiVersion: v1}}\n",
			"workloads \"web\": controller needs apiVersion and kind"},
		{"on zero", head + group + "nodes:\n  - {name: n-1, group: ng-1}\nworkloads:\n  - {name: web, kind: ReplicaSet, replicas: 2, scheduled: 0, on: {n-1: 0}}\n",
			"on: \"n-1\": count must be positive"},
		{"notReady above scheduled", head + "workloads:\n  - {name: web, kind: ReplicaSet, replicas: 2, scheduled: 1, notReady: 2}\n",
			"line 5: workloads \"web\": need 0 <= notReady <= scheduled"},
		{"desired of a Job", head + "workloads:\n  - {name: j, kind: Job, replicas: 1, desired: 2}\n",
			"line 5: workloads \"j\": desired is a ReplicaSet's desired replicas"},
		{"volume type", head + "workloads:\n  - name: web\n    kind: ReplicaSet\n    pod:\n      volumes:\n        - {name: data, type: nfs}\n",
			"line 9: workloads \"web\": pod.volumes.type: must be one of [emptyDir hostPath persistentVolumeClaim ephemeral], got \"nfs\""},
		{"volume twice", head + "workloads:\n  - name: web\n    kind: ReplicaSet\n    pod:\n      volumes:\n        - {name: data, type: emptyDir}\n        - {name: data, type: hostPath}\n",
			"line 10: workloads \"web\": pod.volumes.name: \"data\" defined twice"},
		{"volume name", head + "workloads:\n  - name: web\n    kind: ReplicaSet\n    pod:\n      volumes:\n        - {name: Data_1, type: emptyDir}\n",
			"pod.volumes.name: \"Data_1\" is not a valid name"},
		{"volume field", head + "workloads:\n  - name: web\n    kind: ReplicaSet\n    pod:\n      volumes:\n        - {name: d, type: emptyDir, size: 1Gi}\n",
			"line 9: unknown field size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { expectParseError(t, tt.file, tt.want) })
	}
}

// TestParseNewExpectations checks that the bounded, event, unavailable,
// zone and registered expectations decode into their fields.
func TestParseNewExpectations(t *testing.T) {
	s := parseFile(t, "testdata/valid.yaml")
	e := s.Expect
	if a := e[4].Action; a == nil || a.AtMost == nil || *a.AtMost != 2 || a.AtLeast == nil || *a.AtLeast != 1 || a.Count != nil {
		t.Errorf("bounded action: %+v", a)
	}
	if ev := e[5].Event; ev == nil || ev.Type != "NotTriggerScaleUp" || ev.Group != "ng-1" || ev.Reason != "max size" ||
		ev.From.Duration != time.Minute || ev.Count == nil || *ev.Count != 0 {
		t.Errorf("event: %+v", ev)
	}
	if u := e[6].MaxUnavailable; u == nil || u.Workload != "web" || *u.AtMost != 1 || u.To.Duration != 20*time.Minute {
		t.Errorf("maxUnavailable: %+v", u)
	}
	if z := e[7].ZoneNodes; z == nil || z.Zone != "eu-central-1a" || *z.AtLeast != 1 || z.At.Duration != 10*time.Minute {
		t.Errorf("zoneNodes: %+v", z)
	}
	if g := e[8].Group; g == nil || *g.Registered != 1 || *g.Target != 1 {
		t.Errorf("group: %+v", g)
	}
	for i, want := range []int{56, 57, 58, 59, 60} {
		if e[4+i].Line != want {
			t.Errorf("expect %d: line %d, want %d", 4+i, e[4+i].Line, want)
		}
	}
}

func TestBounds(t *testing.T) {
	n := func(v int) *int { return &v }
	tests := []struct {
		b    Bounds
		in   int
		want bool
		str  string
	}{
		{Bounds{}, 0, true, "any"},
		{Bounds{Count: n(2)}, 2, true, "= 2"},
		{Bounds{Count: n(2)}, 3, false, "= 2"},
		{Bounds{AtMost: n(2)}, 2, true, "<= 2"},
		{Bounds{AtMost: n(2)}, 3, false, "<= 2"},
		{Bounds{AtLeast: n(2)}, 1, false, ">= 2"},
		{Bounds{AtLeast: n(1), AtMost: n(3)}, 3, true, ">= 1, <= 3"},
		{Bounds{AtLeast: n(1), AtMost: n(3)}, 0, false, ">= 1, <= 3"},
	}
	for _, tt := range tests {
		if got := tt.b.Holds(tt.in); got != tt.want || tt.b.String() != tt.str {
			t.Errorf("%s holds %d: %v, want %v (%q)", tt.b, tt.in, got, tt.want, tt.str)
		}
	}
}
