package offline

import (
	"fmt"
	"strings"
	"testing"
)

// runawayScenario is a group whose real nodes differ from its template in
// one way (realNodes, reserved or a DaemonSet), one pending pod that fits
// the template but not the real nodes, two hours.
func runawayScenario(group, extra, podSpec string, noFullScaleDown bool) string {
	return fmt.Sprintf(`apiVersion: kscale.dev/v1alpha1
kind: Scenario
name: runaway
duration: 2h
autoscaler: {backoff-no-full-scale-down: %t}
nodeGroups:
- name: g
  max: 100
  instanceTypes: [m5.large]
%s
workloads:
%s
- name: app
  kind: ReplicaSet
  replicas: 1
  pod: %s
`, noFullScaleDown, group, extra, podSpec)
}

// TestRunawayScaleUp is the regression test of the runaway scale-up: a pod
// that never fits a group's real nodes caused a scale-up every time one of
// its nodes turned Ready (61 in two hours). It may now cause at most two
// in two hours in either backoff mode, the group must end empty (the
// needless node removed as usual), and the mismatch must be reported.
func TestRunawayScaleUp(t *testing.T) {
	cases := []struct {
		name, group, extra, pod, mismatch string
	}{
		{name: "taint from another controller", group: "  realNodes: {taints: [{key: dedicated, value: infra, effect: NoExecute}]}",
			pod: "{requests: {cpu: 500m, memory: 1Gi}}", mismatch: "taint dedicated=infra:NoExecute"},
		{name: "template label missing", group: "  labels: {team: a}\n  realNodes: {removeLabels: [team]}",
			pod: "{requests: {cpu: 500m, memory: 1Gi}, nodeSelector: {team: a}}", mismatch: "label team=a of the template missing"},
		{name: "label with another value", group: "  labels: {team: a}\n  realNodes: {labels: {team: b}}",
			pod: "{requests: {cpu: 500m, memory: 1Gi}, nodeSelector: {team: a}}", mismatch: "label team is b"},
		{name: "less allocatable", group: "  reserved: {cpu: \"1\", memory: 1Gi}",
			pod: "{requests: {cpu: 1500m, memory: 1Gi}}"},
		{name: "DaemonSet pods missing from the template", group: "  realNodes: {labels: {agent: \"yes\"}}",
			extra: "- {name: agent, kind: DaemonSet, pod: {requests: {cpu: 500m, memory: 256Mi}, nodeSelector: {agent: \"yes\"}}}",
			pod:   "{requests: {cpu: 1700m, memory: 1Gi}}", mismatch: "pod default/agent-"},
	}
	for _, tc := range cases {
		for _, noFull := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/backoff-no-full-scale-down=%t", tc.name, noFull), func(t *testing.T) {
				res, _ := runText(t, runawayScenario(tc.group, tc.extra, tc.pod, noFull))
				scaleUps, reported := 0, false
				for _, e := range res.Events {
					switch {
					case e.Type == "ScaleUp":
						scaleUps++
					case e.Type == "TemplateMismatch" && strings.Contains(e.Message, tc.mismatch):
						reported = true
					}
				}
				if scaleUps > 2 {
					t.Errorf("%d scale-ups in 2h, want at most 2", scaleUps)
				}
				if tc.mismatch != "" && !reported {
					t.Errorf("no TemplateMismatch event naming %q", tc.mismatch)
				}
				if g := res.Final.Groups["g"]; g.Target != 0 {
					t.Errorf("final target %d, want 0 (the needless node removed)", g.Target)
				}
			})
		}
	}
}

// TestSlowPodStartIsNoMismatch: pods that take long to become ready on
// their new nodes (image pulls) are bound; nothing about the nodes
// differs, so no mismatch is reported and every pod gets its node.
func TestSlowPodStartIsNoMismatch(t *testing.T) {
	res, _ := runText(t, `apiVersion: kscale.dev/v1alpha1
kind: Scenario
name: slow start
duration: 1h
nodeGroups:
- {name: g, max: 10, instanceTypes: [m5.large]}
workloads:
- name: app
  kind: ReplicaSet
  replicas: 4
  startupTime: 20m
  pod: {requests: {cpu: "1", memory: 1Gi}}
`)
	scaleUps := 0
	for _, e := range res.Events {
		if strings.HasPrefix(e.Type, "TemplateMismatch") {
			t.Errorf("unexpected %s: %s", e.Type, e.Message)
		}
		if e.Type == "ScaleUp" {
			scaleUps += e.Delta
		}
	}
	if scaleUps != 2 || res.Final.PendingPods != 0 {
		t.Errorf("%d nodes added, %d pods pending; want 2 (two pods a node) and 0", scaleUps, res.Final.PendingPods)
	}
}
