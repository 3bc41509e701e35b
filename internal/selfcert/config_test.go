package selfcert

import (
	"strings"
	"testing"
	"time"
)

func TestConfigValidate(t *testing.T) {
	base := Config{Namespace: "ns", SecretName: "s", CommonName: "svc.ns.svc", DNSNames: []string{"svc.ns.svc"}}
	if err := base.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	tests := []struct {
		mod  func(*Config)
		want string
	}{
		{func(c *Config) { c.SecretName = "" }, "--self-signed-cert-secret"},
		{func(c *Config) { c.DNSNames = nil }, "at least one DNS name or IP"},
		{func(c *Config) { c.SyncPeriod = -time.Second }, "--self-signed-cert-sync-period"},
		{func(c *Config) { c.CertValidity = 3 * time.Minute }, "--self-signed-cert-validity: must be at least 3m30s"},
		{func(c *Config) { c.CAValidity = time.Hour }, "--self-signed-ca-validity"},
		{func(c *Config) { c.Overlap = time.Minute }, "overlap must be at least 2m10s"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			c := base
			tt.mod(&c)
			if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate() = %v, want an error containing %q", err, tt.want)
			}
		})
	}
	if _, err := New(base); err == nil || !strings.Contains(err.Error(), "Secrets client") {
		t.Errorf("New without a client: %v", err)
	}
}

func TestOverlapDefaultFollowsSyncPeriod(t *testing.T) {
	c := Config{Namespace: "ns", SecretName: "s", CommonName: "a", DNSNames: []string{"a"}, SyncPeriod: 2 * time.Hour, CertValidity: 24 * time.Hour}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := c.withDefaults().Overlap; got != 4*time.Hour+DefaultPropagation {
		t.Errorf("overlap = %s", got)
	}
}
