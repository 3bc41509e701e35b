package vpaflags

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestClient(t *testing.T) {
	tests := []struct {
		args        []string
		wantErr     string
		wantIgnored []string
	}{
		{args: nil},
		{args: []string{"--ignored-vpa-object-namespaces= a, ,b "}, wantIgnored: []string{"a", "b"}},
		{args: []string{"--vpa-object-namespace=x", "--ignored-vpa-object-namespaces=a"}, wantErr: "set at most one", wantIgnored: []string{"a"}},
		{args: []string{"--namespace="}, wantErr: "--namespace: required"},
		{args: []string{"--address=nope"}, wantErr: "--address"},
		{args: []string{"--kube-api-burst=0"}, wantErr: "--kube-api-qps and --kube-api-burst"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Setenv("NAMESPACE", "")
			var c Client
			fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
			c.AddFlags(fs, ":8943")
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			err := c.Validate()
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("Validate = %v, want %q", err, tt.wantErr)
			}
			if got := c.IgnoredNamespaces(); !slices.Equal(got, tt.wantIgnored) {
				t.Errorf("ignored %q, want %q", got, tt.wantIgnored)
			}
		})
	}
}

func TestClientNamespaceFromEnvironment(t *testing.T) {
	t.Setenv("NAMESPACE", "vpa")
	var c Client
	c.AddFlags(pflag.NewFlagSet("t", pflag.ContinueOnError), ":1")
	if c.Namespace != "vpa" {
		t.Errorf("--namespace default %q, want $NAMESPACE", c.Namespace)
	}
	t.Setenv("NAMESPACE", "")
	c = Client{}
	c.AddFlags(pflag.NewFlagSet("t", pflag.ContinueOnError), ":1")
	if c.Namespace != "kube-system" {
		t.Errorf("--namespace default %q, want kube-system", c.Namespace)
	}
}
