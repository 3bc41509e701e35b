package admission

import (
	"crypto/tls"
	"strings"
	"testing"
)

func TestParseCipherSuites(t *testing.T) {
	got, err := ParseCipherSuites("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256:TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384")
	if err != nil || len(got) != 2 || got[0] != tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 || got[1] != tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384 {
		t.Errorf("ParseCipherSuites = %v, %v", got, err)
	}
	if got, err := ParseCipherSuites(""); got != nil || err != nil {
		t.Errorf("empty = %v, %v; want nil, nil", got, err)
	}
	if _, err := ParseCipherSuites("TLS_RSA_WITH_RC4_128_SHA"); err == nil || !strings.Contains(err.Error(), "--tls-ciphers") {
		t.Errorf("an insecure suite must be refused naming the flag, got %v", err)
	}
}

func TestParseLabels(t *testing.T) {
	got, err := ParseLabels("a:1, b:")
	if err != nil || len(got) != 2 || got["a"] != "1" || got["b"] != "" {
		t.Errorf("ParseLabels = %v, %v", got, err)
	}
	for _, bad := range []string{"a", ":1", "a:1,,"} {
		if _, err := ParseLabels(bad); err == nil || !strings.Contains(err.Error(), "--webhook-labels") {
			t.Errorf("ParseLabels(%q) = %v, want an error naming the flag", bad, err)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	base := DefaultConfig()
	base.CertFile, base.KeyFile, base.CAFile = "c", "k", "ca"
	if err := base.Validate(); err != nil {
		t.Fatalf("valid config: %v", err)
	}
	tests := []struct {
		mutate func(*Config)
		want   string
	}{
		{func(c *Config) { c.Port = 70000 }, "--port"},
		{func(c *Config) { c.CertFile = "" }, "--tls-cert-file"},
		{func(c *Config) { c.MinTLSVersion = "tls1_1" }, "--min-tls-version"},
		{func(c *Config) { c.TimeoutSeconds = 0 }, "--webhook-timeout-seconds"},
		{func(c *Config) { c.CAFile = "" }, "--client-ca-file"},
		{func(c *Config) { c.RegisterByURL, c.WebhookURL = true, "http://x" }, "--webhook-address"},
		{func(c *Config) { c.VPAObjectNamespace, c.IgnoredNamespaces = "a", []string{"b"} }, "set at most one"},
	}
	for _, tc := range tests {
		c := base
		tc.mutate(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate() = %v, want an error naming %s", err, tc.want)
		}
	}
}
