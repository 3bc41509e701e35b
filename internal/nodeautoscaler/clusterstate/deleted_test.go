package clusterstate

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/nodeautoscaler/backoff"
)

// The deletion taints a node carries at each stage of its removal.
var (
	toBeDeleted  = fixture.Taint(ToBeDeletedTaint, "", corev1.TaintEffectNoSchedule)
	beingDeleted = fixture.Taint(BeingDeletedTaint, "", corev1.TaintEffectNoSchedule)
)

// TestCountBucketDeletedRules checks which nodes count as deleted by the
// fork's rule F10 (the BeingDeleted taint) and by upstream's
// (--deleted-nodes-from-cloud-instances: the provider does not vouch for
// the node's instance and it carries ToBeDeleted), for every kind of
// provider knowledge and whether the node's instance is listed.
func TestCountBucketDeletedRules(t *testing.T) {
	now := t0.Add(time.Hour)
	unready := func(taints ...corev1.Taint) *corev1.Node {
		n := readyNode("n", t0, taints...)
		n.Status.Conditions[0].Status = corev1.ConditionFalse
		n.Status.Conditions[0].LastTransitionTime = metav1.NewTime(now.Add(-time.Minute))
		return n
	}
	const (
		listed = cloudprovider.KnowsListedInstances
		kwok   = cloudprovider.AssumesInstancesExist
		cannot = cloudprovider.CannotTellInstances
	)
	tests := []struct {
		name      string
		node      *corev1.Node
		knowledge cloudprovider.InstanceKnowledge
		listed    bool
		fork, up  Bucket
	}{
		{"draining, instance listed", readyNode("n", t0, toBeDeleted), listed, true, Ready, Ready},
		{"cloud deletion started, instance still listed", readyNode("n", t0, toBeDeleted, beingDeleted), listed, true, Deleted, Ready},
		{"cloud deletion started, instance gone", readyNode("n", t0, toBeDeleted, beingDeleted), listed, false, Deleted, Deleted},
		{"instance gone without deletion taints", readyNode("n", t0), listed, false, Ready, Ready},
		{"instance gone, node unready", unready(toBeDeleted), listed, false, Unready, Deleted},
		{"being deleted and unready, instance listed", unready(toBeDeleted, beingDeleted), listed, true, Deleted, Unready},
		{"kwok: draining, not listed", readyNode("n", t0, toBeDeleted, beingDeleted), kwok, false, Deleted, Ready},
		{"cannot tell: draining counts deleted", readyNode("n", t0, toBeDeleted), cannot, true, Ready, Deleted},
		{"cannot tell: BeingDeleted alone is not ToBeDeleted", readyNode("n", t0, beingDeleted), cannot, true, Deleted, Ready},
		{"cannot tell: no taints", readyNode("n", t0), cannot, true, Ready, Ready},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, upstream := range []bool{false, true} {
				rules := ReadinessRules{MaxNodeStartupTime: 15 * time.Minute, DeletedFromCloudInstances: upstream, Instances: tt.knowledge}
				want := tt.fork
				if upstream {
					want = tt.up
				}
				if got := rules.CountBucket(tt.node, tt.listed, now); got != want {
					t.Errorf("upstream rule %v: CountBucket = %v, want %v", upstream, got, want)
				}
				if got := rules.Bucket(tt.node, now); (got == Deleted) != HasTaint(tt.node, BeingDeletedTaint) {
					t.Errorf("upstream rule %v: Bucket = %v; capacity must exclude exactly the nodes whose cloud deletion started", upstream, got)
				}
			}
		})
	}
}

// TestDeletedRulesUpcoming checks the decision the two rules differ on:
// between the start of a node's cloud deletion (BeingDeleted, target
// lowered, instance still listed as deleting) and the instance's
// disappearance, a scale-up of the same group still has one node upcoming
// by the fork's rule and none by upstream's, which counts the node being
// deleted as ready; once the instance is gone both agree.
func TestDeletedRulesUpcoming(t *testing.T) {
	for _, tt := range []struct {
		upstream                bool
		whileDeleting, whenGone int
	}{{false, 1, 1}, {true, 0, 1}} {
		t.Run(fmt.Sprintf("upstream=%v", tt.upstream), func(t *testing.T) {
			r := New(Config{Readiness: ReadinessRules{MaxNodeStartupTime: 15 * time.Minute, DeletedFromCloudInstances: tt.upstream,
				Instances: cloudprovider.KnowsListedInstances}, MaxNodeProvisionTime: provision,
				Backoff: backoff.NewExponential(5*time.Minute, 30*time.Minute, 3*time.Hour)})
			// n-1 stays; n-2's cloud deletion started (target 2 -> 1), then
			// a scale-up asked for one more (target 2) not created yet.
			w := &world{target: 2, instances: []cloudprovider.Instance{
				{ID: "n-1", ProviderID: "p/n-1", State: cloudprovider.InstanceRunning},
				{ID: "n-2", ProviderID: "p/n-2", State: cloudprovider.InstanceDeleting},
				{ID: "ph", ProviderID: "p/ph", State: cloudprovider.InstanceCreating, Placeholder: true}},
				nodes: []*corev1.Node{readyNode("n-1", t0), readyNode("n-2", t0, toBeDeleted, beingDeleted)}}
			r.Update(w.input(), t0.Add(time.Minute))
			st, _ := r.Group("ng")
			if st.Upcoming != tt.whileDeleting || st.Readiness.Registered() != 2 {
				t.Fatalf("while deleting: upcoming %d, want %d; readiness %+v, want 2 registered", st.Upcoming, tt.whileDeleting, st.Readiness)
			}
			w.instances = append(w.instances[:1], w.instances[2]) // the instance is gone, its node not yet
			r.Update(w.input(), t0.Add(2*time.Minute))
			if st, _ := r.Group("ng"); st.Upcoming != tt.whenGone {
				t.Fatalf("instance gone: upcoming %d, want %d (%+v)", st.Upcoming, tt.whenGone, st.Readiness)
			}
		})
	}
}

// TestDeletedRulesClusterHealth checks that the health check counts by the
// same rule: an unready node whose instance is gone and which carries
// ToBeDeleted is deleted by upstream's rule and unready by the fork's; an
// unready node being deleted whose instance is listed the other way round.
// With two of the first kind and one of the second, the fork's rule halts
// at --ok-total-unready-count 1 and upstream's does not.
func TestDeletedRulesClusterHealth(t *testing.T) {
	now := t0.Add(time.Hour)
	unready := func(name string, taints ...corev1.Taint) *corev1.Node {
		n := readyNode(name, t0, taints...)
		n.Status.Conditions[0].Status = corev1.ConditionFalse
		n.Status.Conditions[0].LastTransitionTime = metav1.NewTime(now.Add(-time.Minute))
		return n
	}
	nodes := []*corev1.Node{readyNode("ok", t0), unready("gone-1", toBeDeleted), unready("gone-2", toBeDeleted), unready("deleting", toBeDeleted, beingDeleted)}
	listed := func(n *corev1.Node) bool { return n.Name == "ok" || n.Name == "deleting" }
	for _, tt := range []struct {
		upstream bool
		unready  int
		healthy  bool
	}{{false, 2, false}, {true, 1, true}} {
		rules := ReadinessRules{MaxNodeStartupTime: 15 * time.Minute, DeletedFromCloudInstances: tt.upstream, Instances: cloudprovider.KnowsListedInstances}
		h := CheckClusterHealth(nodes, listed, rules, HealthLimits{OkTotalUnreadyCount: 1}, now)
		if h.Unready != tt.unready || h.Healthy != tt.healthy {
			t.Errorf("upstream rule %v: %+v, want %d unready, healthy %v", tt.upstream, h, tt.unready, tt.healthy)
		}
	}
}
