package live_test

import (
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kscale/kscale/internal/nodeautoscaler/live"
)

// TestBackoffStoreUnderUpstreamRBAC runs the store as a user holding the
// ConfigMap rules of two upstream Roles, which do not name
// cluster-autoscaler-backoff: restoring and saving must not fail, and
// persistence turns off instead.
func TestBackoffStoreUnderUpstreamRBAC(t *testing.T) {
	tests := []struct {
		name  string
		rules []rbacv1.PolicyRule
		// seeded creates a backoff document first (as an earlier kscale
		// version with broader RBAC would have).
		seeded bool
	}{{
		// The Role of kubernetes/autoscaler
		// cluster-autoscaler/cloudprovider/aws/examples/cluster-autoscaler-autodiscover.yaml
		// (commit 046b7e82b9125f5f336736ca91ca0b7f4236dddd): no get on the
		// backoff ConfigMap, so the restore is refused.
		name: "aws example",
		rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create", "list", "watch"}},
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"cluster-autoscaler-status", "cluster-autoscaler-priority-expander"},
				Verbs: []string{"delete", "get", "update", "watch"}},
		},
	}, {
		// Gardener's Role (computeShootResourcesData): get but no update, so
		// the save of an existing document is refused.
		name:   "gardener",
		seeded: true,
		rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"watch", "list", "get", "create"}},
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"cluster-autoscaler-status"}, Verbs: []string{"delete", "update"}},
		},
	}}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			ns := "backoff-rbac-" + string(rune('a'+i))
			createNamespace(t, ns)
			user := "backoff-rbac-user-" + string(rune('a'+i))
			grantRole(t, ns, user, tt.rules)
			if tt.seeded {
				seed, err := live.NewBackoffStore(env.Client, ns)
				if err != nil {
					t.Fatal(err)
				}
				if err := seed.SaveBackoff(ctx, newBackoffRegistry().reg.BackoffState()); err != nil {
					t.Fatal(err)
				}
			}
			store, err := live.NewBackoffStore(impersonate(t, user), ns)
			if err != nil {
				t.Fatal(err)
			}
			r := newBackoffRegistry()
			if err := store.Restore(ctx, r); err != nil {
				t.Fatalf("restore: %v", err)
			}
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			r.fail("spot", now)
			if err := store.SaveBackoff(ctx, r.reg.BackoffState()); err != nil {
				t.Fatalf("save: %v", err)
			}
			if store.Persistent() {
				t.Error("persistence is still on after the API server refused the ConfigMap")
			}
			if !r.backedOff("spot", now) {
				t.Error("the in-memory backoff was lost")
			}
		})
	}
	t.Run("full access keeps persistence on", func(t *testing.T) {
		ns := "backoff-rbac-full"
		createNamespace(t, ns)
		store, err := live.NewBackoffStore(env.Client, ns)
		if err != nil {
			t.Fatal(err)
		}
		r := newBackoffRegistry()
		r.fail("spot", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		if err := store.SaveBackoff(t.Context(), r.reg.BackoffState()); err != nil {
			t.Fatal(err)
		}
		if !store.Persistent() {
			t.Error("persistence turned off with full access")
		}
	})
}

// grantRole binds a Role with rules in ns to user.
func grantRole(t *testing.T, ns, user string, rules []rbacv1.PolicyRule) {
	t.Helper()
	ctx := t.Context()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "under-test", Namespace: ns}, Rules: rules}
	if _, err := env.Client.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	b := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "under-test", Namespace: ns},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}}}
	if _, err := env.Client.RbacV1().RoleBindings(ns).Create(ctx, b, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// impersonate returns a client acting as user (the admin may impersonate).
func impersonate(t *testing.T, user string) kubernetes.Interface {
	t.Helper()
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
