package shadow

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/dryrun"
)

var t0 = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

func podRef(name string) []nodeautoscaler.PodRef {
	return []nodeautoscaler.PodRef{{Namespace: "ns", Name: name}}
}

func TestComparatorVerdicts(t *testing.T) {
	tests := []struct {
		name      string
		kscale    []dryrun.Decision
		upstream  []Observation
		targets   []map[string]int
		wantAgree bool
		want      string
		subject   string
	}{
		{name: "same group", kscale: []dryrun.Decision{{Time: at(0), Kind: dryrun.DecisionScaleUp, Group: "g1", Pods: podRef("p")}},
			upstream: []Observation{{Time: at(2), Kind: ObsScaleUp, Subject: "ns/p", Groups: []string{"g1"}}}, wantAgree: true, want: ReasonSameGroup, subject: "ns/p"},
		{name: "other group", kscale: []dryrun.Decision{{Time: at(0), Kind: dryrun.DecisionScaleUp, Group: "g1", Pods: podRef("p")}},
			upstream: []Observation{{Time: at(2), Kind: ObsScaleUp, Subject: "ns/p", Groups: []string{"g2"}}}, want: ReasonOtherGroup, subject: "ns/p"},
		{name: "upstream would not", kscale: []dryrun.Decision{{Time: at(0), Kind: dryrun.DecisionScaleUp, Group: "g1", Pods: podRef("p")}},
			upstream: []Observation{{Time: at(1), Kind: ObsNoScaleUp, Subject: "ns/p"}}, want: ReasonUpstreamNoScaleUp, subject: "ns/p"},
		{name: "upstream silent", kscale: []dryrun.Decision{{Time: at(0), Kind: dryrun.DecisionScaleUp, Group: "g1", Pods: podRef("p")}},
			want: ReasonUpstreamSilent, subject: "ns/p"},
		{name: "the chosen group grew", kscale: []dryrun.Decision{{Time: at(0), Kind: dryrun.DecisionScaleUp, Group: "g1", Pods: podRef("p")}},
			targets: []map[string]int{{"g1": 1}, {"g1": 3}}, wantAgree: true, want: ReasonTargetGrew, subject: "ns/p"},
		{name: "both no scale-up", kscale: []dryrun.Decision{{Time: at(0), Kind: dryrun.DecisionNoScaleUp, Pods: podRef("p")}},
			upstream: []Observation{{Time: at(3), Kind: ObsNoScaleUp, Subject: "ns/p"}}, wantAgree: true, want: ReasonBothNoScaleUp, subject: "ns/p"},
		{name: "the latest decision counts", kscale: []dryrun.Decision{{Time: at(0), Kind: dryrun.DecisionNoScaleUp, Pods: podRef("p")},
			{Time: at(1), Kind: dryrun.DecisionScaleUp, Group: "g1", Pods: podRef("p")}},
			upstream: []Observation{{Time: at(3), Kind: ObsScaleUp, Subject: "ns/p", Groups: []string{"g1"}}}, wantAgree: true, want: ReasonSameGroup, subject: "ns/p"},
		{name: "upstream scaled up", kscale: []dryrun.Decision{{Time: at(0), Kind: dryrun.DecisionNoScaleUp, Pods: podRef("p")}},
			upstream: []Observation{{Time: at(3), Kind: ObsScaleUp, Subject: "ns/p", Groups: []string{"g1"}}}, want: ReasonUpstreamScaledUp, subject: "ns/p"},
		{name: "kscale silent", upstream: []Observation{{Time: at(0), Kind: ObsScaleUp, Subject: "ns/p", Groups: []string{"g1"}}},
			want: ReasonKscaleSilent, subject: "ns/p"},
		{name: "both removed", kscale: []dryrun.Decision{{Time: at(0), Kind: dryrun.DecisionScaleDown, Nodes: []string{"n1"}, Reason: "empty"}},
			upstream: []Observation{{Time: at(5), Kind: ObsScaleDown, Subject: "n1"}}, wantAgree: true, want: ReasonBothRemoved, subject: "n1"},
		{name: "upstream kept the node", kscale: []dryrun.Decision{{Time: at(0), Kind: dryrun.DecisionScaleDown, Nodes: []string{"n1"}}},
			want: ReasonUpstreamKeptNode, subject: "n1"},
		{name: "kscale kept the node", kscale: []dryrun.Decision{{Time: at(0), Kind: dryrun.DecisionUnremovable, Nodes: []string{"n1"}, Reason: "NotUnderutilized"}},
			upstream: []Observation{{Time: at(1), Kind: ObsScaleDown, Subject: "n1"}}, want: ReasonKscaleKeptNode, subject: "n1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(Config{Window: 30 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range tt.kscale {
				c.Kscale(d)
			}
			for _, o := range tt.upstream {
				c.Upstream(o)
			}
			var tr Targets
			for i, tg := range tt.targets {
				for _, o := range tr.Observe(at(i), tg) {
					c.Upstream(o)
				}
			}
			got := c.Settle(at(60))
			if len(got) != 1 {
				t.Fatalf("got %d verdicts %+v, want 1", len(got), got)
			}
			v := got[0]
			if v.Agree != tt.wantAgree || v.Reason != tt.want || v.Subject != tt.subject {
				t.Errorf("verdict %+v, want agree=%v reason %s subject %s", v, tt.wantAgree, tt.want, tt.subject)
			}
			if again := c.Settle(at(120)); len(again) != 0 {
				t.Errorf("settled twice: %+v", again)
			}
		})
	}
}

func TestComparatorWaitsForTheWindowAndIgnoresRepeats(t *testing.T) {
	c, err := New(Config{Window: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	d := dryrun.Decision{Time: at(0), Kind: dryrun.DecisionScaleUp, Group: "g1", Pods: podRef("p")}
	c.Kscale(d)
	if got := c.Settle(at(10)); len(got) != 0 {
		t.Fatalf("settled before the window: %+v", got)
	}
	c.Upstream(Observation{Time: at(12), Kind: ObsScaleUp, Subject: "ns/p", Groups: []string{"g1"}})
	if got := c.Settle(at(13)); len(got) != 1 || !got[0].Agree {
		t.Fatalf("verdicts at 13s %+v, want one agreement", got)
	}
	// The loop decides again until the new node shows: no second verdict.
	d.Time = at(14)
	c.Kscale(d)
	if got := c.Settle(at(60)); len(got) != 0 {
		t.Errorf("a repeated decision gave verdicts %+v", got)
	}
	if _, err := New(Config{}); err == nil {
		t.Error("New without a window: no error")
	}
}

func TestFromEventReadsUpstreamEvents(t *testing.T) {
	ts := metav1.NewTime(t0)
	ev := func(reason, kind, msg string) *corev1.Event {
		return &corev1.Event{Reason: reason, Message: msg, LastTimestamp: ts, Source: corev1.EventSource{Component: UpstreamSource},
			InvolvedObject: corev1.ObjectReference{Kind: kind, Namespace: "ns", Name: "x"}}
	}
	tests := []struct {
		name    string
		event   *corev1.Event
		want    string
		subject string
		groups  []string
	}{
		{name: "triggered", event: ev("TriggeredScaleUp", "Pod", "pod triggered scale-up: [{MachineDeployment/c/md-a 1->3 (max: 10)} {g2 0->1 (max: 5)}]"),
			want: ObsScaleUp, subject: "ns/x", groups: []string{"MachineDeployment/c/md-a", "g2"}},
		{name: "not triggered", event: ev("NotTriggerScaleUp", "Pod", "pod didn't trigger scale-up: 1 max node group size reached"), want: ObsNoScaleUp, subject: "ns/x"},
		{name: "scale-down", event: ev("ScaleDown", "Node", "marked the node as toBeDeleted/unschedulable"), want: ObsScaleDown, subject: "x"},
		{name: "scale-down on a pod", event: ev("ScaleDown", "Pod", "deleting pod for node scale down")},
		{name: "another source", event: func() *corev1.Event { e := ev("ScaleDown", "Node", ""); e.Source.Component = "kubelet"; return e }()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, ok := FromEvent(tt.event)
			if ok != (tt.want != "") {
				t.Fatalf("FromEvent ok = %v, want %v", ok, tt.want != "")
			}
			if !ok {
				return
			}
			if o.Kind != tt.want || o.Subject != tt.subject || !o.Time.Equal(t0) || len(o.Groups) != len(tt.groups) {
				t.Fatalf("observation %+v, want kind %s subject %s groups %v", o, tt.want, tt.subject, tt.groups)
			}
			for i := range tt.groups {
				if o.Groups[i] != tt.groups[i] {
					t.Errorf("groups %v, want %v", o.Groups, tt.groups)
				}
			}
		})
	}
}

func TestCandidatesComparesUpstreamStatus(t *testing.T) {
	const doc = `time: 2026-11-27 12:00:00 +0000 UTC
autoscalerStatus: Running
nodeGroups:
- name: g1
  scaleDown:
    status: CandidatesPresent
    candidates: 2
- name: g2
  scaleDown:
    status: NoCandidates
`
	up, err := ParseStatus(doc)
	if err != nil {
		t.Fatal(err)
	}
	var c Candidates
	if got := c.Compare(at(0), map[string]int{"g1": 2}); got != nil {
		t.Fatalf("verdicts before upstream's status: %+v", got)
	}
	c.Upstream(up)
	got := c.Compare(at(1), map[string]int{"g1": 2, "g2": 1})
	if len(got) != 2 || !got[0].Agree || got[0].Subject != "g1" || got[1].Agree || got[1].Reason != ReasonOtherCandidates {
		t.Fatalf("verdicts %+v, want g1 agreeing, g2 disagreeing", got)
	}
	if again := c.Compare(at(2), map[string]int{"g1": 2, "g2": 1}); len(again) != 0 {
		t.Errorf("unchanged counts gave verdicts %+v", again)
	}
	if _, err := ParseStatus("nodeGroups: {"); err == nil {
		t.Error("ParseStatus of bad YAML: no error")
	}
}
