package scaledown

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/fixture"
)

// replicaLookup finds every controller; replicas are spec.replicas by
// controller name (absent: no count set).
type replicaLookup map[string]int32

func (replicaLookup) ControllerExists(string, *metav1.OwnerReference) bool { return true }

func (l replicaLookup) DesiredReplicas(_ string, ref *metav1.OwnerReference) (int32, bool) {
	n, ok := l[ref.Name]
	return n, ok
}

// TestClassifyDrainFlags covers --skip-nodes-with-custom-controller-pods,
// --min-replica-count and --blocking-system-pod-distruption-timeout on the
// pure pod rules.
func TestClassifyDrainFlags(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	rs := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}
	rc := schema.GroupVersionKind{Version: "v1", Kind: "ReplicationController"}
	sts := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "StatefulSet"}
	rollout := schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "Rollout"}
	pod := func(ns string, gvk schema.GroupVersionKind, owner string, age time.Duration) *corev1.Pod {
		p := fixture.Pod("p", fixture.WithOwner(gvk, owner, types.UID("uid-"+owner)), fixture.WithCreationTime(metav1.NewTime(now.Add(-age))))
		p.Namespace = ns
		return p
	}
	lookup := replicaLookup{"small": 1, "big": 5}
	tests := []struct {
		name    string
		pod     *corev1.Pod
		covered bool
		cfg     func(*Config)
		lookup  ControllerLookup
		want    Reason
	}{
		{name: "custom controller blocks by default", pod: pod("default", rollout, "r", time.Hour), lookup: lookup, want: ReasonBarePod},
		{name: "custom controller moves with the flag off", pod: pod("default", rollout, "r", time.Hour), lookup: lookup,
			cfg: func(c *Config) { c.SkipNodesWithCustomControllerPods = false }},
		{name: "custom controller blocks without a lookup too", pod: pod("default", rollout, "r", time.Hour), want: ReasonBarePod},
		{name: "flag off looks nothing up", pod: pod("default", rs, "gone", time.Hour), lookup: controllerSet{},
			cfg: func(c *Config) { c.SkipNodesWithCustomControllerPods = false }},
		{name: "min replica count 0 never blocks", pod: pod("default", rs, "small", time.Hour), lookup: lookup},
		{name: "ReplicaSet under the min blocks", pod: pod("default", rs, "small", time.Hour), lookup: lookup,
			cfg: func(c *Config) { c.MinReplicaCount = 2 }, want: ReasonMinReplicas},
		{name: "ReplicaSet at the min moves", pod: pod("default", rs, "big", time.Hour), lookup: lookup,
			cfg: func(c *Config) { c.MinReplicaCount = 5 }},
		{name: "ReplicationController under the min blocks", pod: pod("default", rc, "small", time.Hour), lookup: lookup,
			cfg: func(c *Config) { c.MinReplicaCount = 2 }, want: ReasonMinReplicas},
		{name: "StatefulSet has no min", pod: pod("default", sts, "small", time.Hour), lookup: lookup,
			cfg: func(c *Config) { c.MinReplicaCount = 2 }},
		{name: "no replica count set never blocks", pod: pod("default", rs, "unset", time.Hour), lookup: lookup,
			cfg: func(c *Config) { c.MinReplicaCount = 2 }},
		{name: "min replicas off with the custom flag off", pod: pod("default", rs, "small", time.Hour), lookup: lookup,
			cfg: func(c *Config) { c.MinReplicaCount = 2; c.SkipNodesWithCustomControllerPods = false }},
		{name: "young system pod blocks", pod: pod("kube-system", rs, "big", 59*time.Minute), lookup: lookup, want: ReasonSystemPod},
		{name: "system pod older than the timeout moves", pod: pod("kube-system", rs, "big", time.Hour), lookup: lookup},
		{name: "shorter timeout", pod: pod("kube-system", rs, "big", 11*time.Minute), lookup: lookup,
			cfg: func(c *Config) { c.BlockingSystemPodTimeout = 10 * time.Minute }},
		{name: "timeout 0 never blocks", pod: pod("kube-system", rs, "big", 0), lookup: lookup,
			cfg: func(c *Config) { c.BlockingSystemPodTimeout = 0 }},
		{name: "system pod with a budget moves", pod: pod("kube-system", rs, "big", time.Minute), covered: true, lookup: lookup},
		{name: "system pods allowed", pod: pod("kube-system", rs, "big", time.Minute), lookup: lookup,
			cfg: func(c *Config) { c.SkipNodesWithSystemPods = false }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Default()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			kind, got := cfg.classify(tc.pod, tc.covered, tc.lookup, now)
			if kind != podMovable || got != tc.want {
				t.Errorf("classify = %v %q, want movable %q", kind, got, tc.want)
			}
		})
	}
}

// TestConfigValidateDrainFlags checks the new settings are validated by
// flag name.
func TestConfigValidateDrainFlags(t *testing.T) {
	for flag, mut := range map[string]func(*Config){
		"--min-replica-count":                       func(c *Config) { c.MinReplicaCount = -1 },
		"--blocking-system-pod-distruption-timeout": func(c *Config) { c.BlockingSystemPodTimeout = -time.Second },
	} {
		c := Default()
		mut(&c)
		if err := c.Validate(); err == nil || err.Error()[:len(flag)] != flag {
			t.Errorf("%s: Validate() = %v, want an error naming it", flag, err)
		}
	}
}
