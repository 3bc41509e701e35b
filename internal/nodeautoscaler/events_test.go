package nodeautoscaler

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/actuation"
	"github.com/kscale/kscale/internal/nodeautoscaler/actuation/memcluster"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaleup"
)

func TestSummarizeReasons(t *testing.T) {
	tests := []struct {
		name    string
		reasons []scaleup.GroupReason
		want    string
	}{
		{"none", nil, ""},
		{"max size in upstream's words", []scaleup.GroupReason{{Group: "a", Reason: "max size reached"}}, "1 max node group size reached"},
		{"counted per reason, most frequent first", []scaleup.GroupReason{
			{Group: "a", Reason: "does not fit the template: NodeAffinity: node(s) didn't match Pod's node affinity/selector"},
			{Group: "b", Reason: "max size reached"},
			{Group: "c", Reason: "max size reached"},
		}, "2 max node group size reached, 1 node(s) didn't match Pod's node affinity/selector"},
		{"ties by text", []scaleup.GroupReason{
			{Group: "a", Reason: "does not fit the template: NodeResourcesFit: Insufficient memory"},
			{Group: "b", Reason: "does not fit the template: NodeResourcesFit: Insufficient cpu"},
		}, "1 Insufficient cpu, 1 Insufficient memory"},
		{"other reasons kept", []scaleup.GroupReason{
			{Group: "a", Reason: "in backoff after failed scale-up (InsufficientInstanceCapacity)"},
			{Group: "b", Reason: "max nodes total reached"},
			{Group: "c", Reason: "does not fit the template: no filter"},
		}, "1 in backoff after failed scale-up (InsufficientInstanceCapacity), 1 max total nodes in cluster reached, 1 no filter"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := SummarizeReasons(tc.reasons); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestScaleUpInfoString(t *testing.T) {
	infos := []ScaleUpInfo{{Group: "a", From: 1, To: 3, Max: 10}, {Group: "b", From: 0, To: 2, Max: 5}}
	if got, want := fmt.Sprint(infos), "[{a 1->3 (max: 10)} {b 0->2 (max: 5)}]"; got != want {
		t.Errorf("got %q, want upstream's %q", got, want)
	}
}

func withUID(p *corev1.Pod) *corev1.Pod {
	p.UID = types.UID("uid-" + p.Name)
	return p
}

func refNames(refs []PodRef) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.Name
		if r.UID != types.UID("uid-"+r.Name) {
			out[i] += " (wrong uid " + string(r.UID) + ")"
		}
	}
	slices.Sort(out)
	return out
}

func eventsOf(rec *events, typ EventType) []Event {
	var out []Event
	for _, e := range *rec {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// Seven replicas of one workload, one per node, and room for five in the
// chosen group: the five the estimate placed triggered the scale-up, only
// the other two get NotTriggerScaleUp, and a pod no template fits gets the
// reason of every group.
func TestRunOnceNamesThePodsOfEachScaleUpOutcome(t *testing.T) {
	a, _, cl, rec, _, now := newLoop(t, nil)
	for i := range 7 {
		cl.pods = append(cl.pods, withUID(fixture.Pod(fmt.Sprintf("web-%d", i), fixture.WithRequests("cpu", "1", "memory", "20Gi"),
			fixture.UnschedulablePod(), fixture.WithOwner(appsv1.SchemeGroupVersion.WithKind("ReplicaSet"), "web", "uid-rs"))))
	}
	cl.pods = append(cl.pods, withUID(fixture.Pod("huge", fixture.WithRequests("memory", "1Ti"), fixture.UnschedulablePod())))
	if err := a.RunOnce(t.Context(), now); err != nil {
		t.Fatal(err)
	}
	ups := eventsOf(rec, EventScaleUp)
	if len(ups) != 1 {
		t.Fatalf("scale-up events %+v, want one", ups)
	}
	if got := fmt.Sprint(ups[0].ScaleUps); got != "[{ng-high 0->5 (max: 5)}]" {
		t.Errorf("size changes %s", got)
	}
	triggered := refNames(ups[0].PodRefs)
	if len(triggered) != 5 || ups[0].Pods != 5 {
		t.Fatalf("triggering pods %v (count %d), want 5 of web", triggered, ups[0].Pods)
	}
	not := map[string]Event{}
	for _, e := range eventsOf(rec, EventNotTriggerScaleUp) {
		not[e.Reason] = e
	}
	web, huge := not["default/web"], not["default/huge"]
	if got := refNames(web.PodRefs); len(got) != 2 || web.Pods != 2 || slices.ContainsFunc(got, func(n string) bool { return slices.Contains(triggered, n) }) {
		t.Errorf("NotTriggerScaleUp of web names %v (count %d), want the 2 pods that did not trigger", got, web.Pods)
	}
	if got := refNames(huge.PodRefs); !slices.Equal(got, []string{"huge"}) {
		t.Errorf("NotTriggerScaleUp of huge names %v", got)
	}
	if got, want := SummarizeReasons(huge.GroupReasons), "2 Insufficient memory"; got != want {
		t.Errorf("huge: summary %q, want %q (reasons %+v)", got, want, huge.GroupReasons)
	}
	if !strings.Contains(huge.Message, "ng-low: ") || !strings.Contains(huge.Message, "ng-high: ") {
		t.Errorf("timeline message %q lost the group names", huge.Message)
	}
}

// sdLoop builds a loop with scale-down over one empty registered node of
// ng-high; taint says whether memcluster knows the node (else tainting fails).
func sdLoop(t *testing.T, taint bool) (*Autoscaler, *events, time.Time) {
	t.Helper()
	a, cloud, cl, rec, _, now := newLoop(t, nil)
	if err := cloud.AddInstance("ng-high", "i-1", true, 0); err != nil {
		t.Fatal(err)
	}
	n := fixture.Node("i-1", fixture.WithProviderID(inmemory.ProviderID("ng-high", "i-1")))
	cl.nodes = []*corev1.Node{n}
	mem := memcluster.New(now)
	if taint {
		mem.AddNode(n)
	}
	o := a.cfg.Options
	o.ScaleDown.UnneededTime, o.ScaleDown.DelayAfterAdd = time.Minute, -1
	cfg := a.cfg
	cfg.Options, cfg.ScaleDown, cfg.Registerer = o, mem, nil
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a, rec, now
}

func TestScaleDownEventsAndCandidates(t *testing.T) {
	a, rec, now := sdLoop(t, true)
	if got := a.ScaleDownCandidates(); got == nil || len(got) != 0 {
		t.Fatalf("candidates before the first round = %v, want empty (scale-down wired)", got)
	}
	if err := a.RunOnce(t.Context(), now); err != nil {
		t.Fatal(err)
	}
	if got := a.ScaleDownCandidates(); got["ng-high"] != 1 || len(got) != 1 {
		t.Fatalf("candidates = %v, want ng-high: 1", got)
	}
	if len(eventsOf(rec, EventScaleDownStarted)) != 0 {
		t.Fatalf("deletion started before the unneeded time: %+v", *rec)
	}
	// The node is marked at 2m and deleted at the first loop after
	// --node-delete-delay-after-taint (5s).
	for _, at := range []time.Duration{2 * time.Minute, 2*time.Minute + 10*time.Second} {
		if err := a.RunOnce(t.Context(), now.Add(at)); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, e := range *rec {
		if e.Type == EventScaleDownStarted || e.Type == EventDeleteNodes {
			got = append(got, fmt.Sprintf("%s %s %v %s %s", e.Type, e.Group, e.Nodes, e.Reason, e.Message))
		}
	}
	want := []string{"ScaleDownStarted ng-high [i-1]  empty", "DeleteNodes ng-high [i-1] ScaleDown empty"}
	if !slices.Equal(got, want) {
		t.Errorf("scale-down events %q, want %q", got, want)
	}
}

func TestScaleDownFailureWordedByStep(t *testing.T) {
	a, rec, now := sdLoop(t, false)
	for _, at := range []time.Duration{0, 2 * time.Minute} {
		if err := a.RunOnce(t.Context(), now.Add(at)); err != nil {
			t.Fatal(err)
		}
	}
	failed := eventsOf(rec, EventScaleDownFailed)
	if len(failed) != 1 || failed[0].Reason != string(actuation.FailureTaint) ||
		!strings.HasPrefix(failed[0].Message, "failed to mark the node as toBeDeleted/unschedulable: ") {
		t.Fatalf("failure events %+v", failed)
	}
	if started := eventsOf(rec, EventScaleDownStarted); len(started) != 0 {
		t.Errorf("a node that could not be marked reported as started: %+v", started)
	}
}

func TestFailureMessage(t *testing.T) {
	err := fmt.Errorf("boom")
	tests := []struct {
		o    actuation.Outcome
		want string
	}{
		{actuation.Outcome{Kind: actuation.KindEmpty, Failure: actuation.FailureTaint, Err: err}, "failed to mark the node as toBeDeleted/unschedulable: boom"},
		{actuation.Outcome{Kind: actuation.KindNonEmpty, Failure: actuation.FailureEvictionTimeout, Err: err}, "failed to drain and delete node: boom"},
		{actuation.Outcome{Kind: actuation.KindNonEmpty, Failure: actuation.FailureCloudDelete, Err: err}, "failed to drain and delete node: boom"},
		{actuation.Outcome{Kind: actuation.KindEmpty, Failure: actuation.FailureNotEmpty, Err: err}, "failed to delete empty node: boom"},
		{actuation.Outcome{Kind: actuation.KindEmpty, Failure: actuation.FailureCloudDelete, Err: err}, "failed to delete empty node: boom"},
	}
	for _, tc := range tests {
		if got := failureMessage(tc.o); got != tc.want {
			t.Errorf("%s %s: got %q, want %q", tc.o.Kind, tc.o.Failure, got, tc.want)
		}
	}
}

func TestScaleDownCandidatesNilWithoutScaleDown(t *testing.T) {
	a, _, _, _, _, _ := newLoop(t, nil)
	if got := a.ScaleDownCandidates(); got != nil {
		t.Errorf("candidates without scale-down wired = %v, want nil", got)
	}
}
