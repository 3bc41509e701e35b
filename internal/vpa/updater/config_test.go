package updater

import (
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestConfigValidate(t *testing.T) {
	if c := DefaultConfig(); c.Validate() != nil {
		t.Fatalf("defaults invalid: %v", c.Validate())
	}
	tests := []struct {
		mutate func(*Config)
		want   string
	}{
		{func(c *Config) { c.Interval = -time.Second }, "--updater-interval"},
		{func(c *Config) { c.MinReplicas = -1 }, "--min-replicas"},
		{func(c *Config) { c.EvictionTolerance = 1.5 }, "--eviction-tolerance"},
		{func(c *Config) { c.EvictionRateBurst = -1 }, "--eviction-rate-burst"},
		{func(c *Config) { c.Thresholds.EvictAfterOOM = -time.Second }, "--evict-after-oom-threshold"},
		{func(c *Config) { c.Thresholds.PodUpdate = -0.1 }, "--pod-update-threshold"},
	}
	for _, tc := range tests {
		c := DefaultConfig()
		tc.mutate(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate() = %v, want an error naming %s", err, tc.want)
		}
	}
}

func TestAdmissionAlive(t *testing.T) {
	lease := func(age time.Duration) *coordinationv1.Lease {
		rt := metav1.NewMicroTime(now.Add(-age))
		return &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{RenewTime: &rt}}
	}
	for _, tc := range []struct {
		lease *coordinationv1.Lease
		want  bool
	}{{nil, false}, {&coordinationv1.Lease{}, false}, {lease(59 * time.Second), true}, {lease(time.Minute), false}} {
		if got := AdmissionAlive(tc.lease, now, time.Minute); got != tc.want {
			t.Errorf("AdmissionAlive(%v) = %v, want %v", tc.lease, got, tc.want)
		}
	}
}
