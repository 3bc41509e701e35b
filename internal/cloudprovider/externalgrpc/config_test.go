package externalgrpc_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kscale/kscale/internal/cloudprovider/externalgrpc"
)

func TestParseCloudConfig(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		timeout time.Duration
		wantErr string
	}{
		{"address only", "address: provider.kube-system.svc:8086\n", externalgrpc.DefaultTimeout, ""},
		{"upstream's full form", "address: \"[::1]:8086\"\nkey: /c/tls.key\ncert: /c/tls.crt\ncacert: /c/ca.crt\ngrpc_timeout: 10s\n", 10 * time.Second, ""},
		{"no address", "grpc_timeout: 1s\n", 0, "address: required"},
		{"no port", "address: provider\n", 0, "address:"},
		{"cert without key", "address: a:1\ncert: /c\ncacert: /ca\n", 0, "key: required"},
		{"key without cert", "address: a:1\nkey: /k\n", 0, "cert: required"},
		{"cert without ca", "address: a:1\ncert: /c\nkey: /k\n", 0, "cacert: required"},
		{"bad timeout", "address: a:1\ngrpc_timeout: soon\n", 0, "grpc_timeout"},
		{"negative timeout", "address: a:1\ngrpc_timeout: -1s\n", 0, "grpc_timeout: must be positive"},
		{"unknown key", "address: a:1\ntimeout: 1s\n", 0, `unknown field "timeout"`},
		{"not yaml", "address: [\n", 0, "parsing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := externalgrpc.ParseCloudConfig([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Timeout() != tt.timeout {
				t.Errorf("timeout = %s, want %s", c.Timeout(), tt.timeout)
			}
		})
	}
}

func FuzzParseCloudConfig(f *testing.F) {
	f.Add([]byte("address: a:1\ngrpc_timeout: 3s\n"))
	f.Add([]byte("address: a:1\ncert: c\nkey: k\ncacert: ca\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := externalgrpc.ParseCloudConfig(data)
		if err != nil {
			return
		}
		if c.Address == "" || c.Timeout() <= 0 {
			t.Errorf("accepted config %+v has no address or a non-positive timeout", c)
		}
	})
}
