package nodeautoscaler_test

import (
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kscale/kscale/internal/manifesttest"
)

// TestProviderRBACReadsWhatTheLoopReads keeps the provider kustomizations
// from drifting behind this one: the loop's informers (list and watch of
// every kind its view reads) are the same whatever the cloud, so every
// provider's ClusterRole must grant each list/watch rule of the base. A
// kind the loop starts reading is added here first, and this test names
// the overlays that lack it (their end-to-end tests would only time out
// waiting for caches).
func TestProviderRBACReadsWhatTheLoopReads(t *testing.T) {
	base := readRules(t, ".")
	for _, dir := range []string{"../node-autoscaler-aws", "../node-autoscaler-clusterapi", "../node-autoscaler-mcm/target", "../node-autoscaler-shadow", "../node-autoscaler-externalgrpc"} {
		rules := readRules(t, dir)
		for _, want := range base {
			if !slices.Equal(want.Verbs, []string{"list", "watch"}) {
				continue
			}
			for _, res := range want.Resources {
				if !grants(rules, want.APIGroups[0], res, "list") || !grants(rules, want.APIGroups[0], res, "watch") {
					t.Errorf("%s: the ClusterRole does not list and watch %s %q, which the loop reads", dir, want.APIGroups[0], res)
				}
			}
		}
	}
}

// readRules returns the rules of the kustomization's ClusterRoles.
func readRules(t *testing.T, dir string) []rbacv1.PolicyRule {
	t.Helper()
	var out []rbacv1.PolicyRule
	for _, obj := range manifesttest.Load(t, dir) {
		if obj.GetKind() != "ClusterRole" {
			continue
		}
		var role rbacv1.ClusterRole
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &role); err != nil {
			t.Fatalf("%s: ClusterRole %s: %v", dir, obj.GetName(), err)
		}
		out = append(out, role.Rules...)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no ClusterRole rules", dir)
	}
	return out
}

func grants(rules []rbacv1.PolicyRule, group, resource, verb string) bool {
	return slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool {
		return slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, verb)
	})
}
