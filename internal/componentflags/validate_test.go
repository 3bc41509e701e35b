package componentflags

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestValidateAddress(t *testing.T) {
	tests := []struct {
		addr       string
		allowEmpty bool
		wantErr    string
	}{
		{":8080", false, ""},
		{"127.0.0.1:0", false, ""},
		{"", true, ""},
		{"", false, "--a: \"\" is not host:port"},
		{"localhost", false, "is not host:port"},
		{":70000", false, "port \"70000\" is not a number from 0 to 65535"},
		{":http", false, "port \"http\""},
	}
	for _, tt := range tests {
		err := ValidateAddress("--a", tt.addr, tt.allowEmpty)
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("ValidateAddress(%q, %v) = %v, want %q", tt.addr, tt.allowEmpty, err, tt.wantErr)
		}
	}
}

func TestValidateFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path    string
		wantErr string
	}{
		{"", ""},
		{file, ""},
		{dir, "--f: " + dir + " is a directory"},
		{filepath.Join(dir, "missing"), "--f: stat"},
	}
	for _, tt := range tests {
		err := ValidateFile("--f", tt.path)
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("ValidateFile(%q) = %v, want %q", tt.path, err, tt.wantErr)
		}
		var fe *FileError
		if err != nil && (!errors.As(err, &fe) || fe.Flag != "--f") {
			t.Errorf("ValidateFile(%q) = %#v, want a FileError naming --f", tt.path, err)
		}
	}
}

func TestDurationsAndLimits(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"interval ok", ValidateInterval("--i", time.Second), ""},
		{"interval short", ValidateInterval("--i", time.Millisecond), "--i: must be at least 1s, got 1ms"},
		{"positive ok", Positive(Duration{"--a", time.Second}, Duration{"--b", time.Minute}), ""},
		{"second not positive", Positive(Duration{"--a", time.Second}, Duration{"--b", 0}), "--b: must be positive, got 0s"},
		{"limits ok", ValidateLimits("--q", "--b", 5, 10), ""},
		{"qps NaN", ValidateLimits("--q", "--b", math.NaN(), 10), "--q and --b: must be positive"},
		{"qps infinite", ValidateLimits("--q", "--b", math.Inf(1), 10), "--q and --b"},
		{"burst zero", ValidateLimits("--q", "--b", 5, 0), "--q and --b"},
	}
	for _, tt := range tests {
		if tt.want == "" && tt.err != nil || tt.want != "" && (tt.err == nil || !strings.Contains(tt.err.Error(), tt.want)) {
			t.Errorf("%s: %v, want %q", tt.name, tt.err, tt.want)
		}
	}
}

func TestClientFlags(t *testing.T) {
	var c Client
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	c.AddFlags(fs, ClientSpec{QPSFlag: "qps", QPS: 20, BurstFlag: "burst", Burst: 40})
	if c.QPS != 20 || c.Burst != 40 || fs.Lookup("kubeconfig") == nil {
		t.Fatalf("defaults: qps %v burst %d", c.QPS, c.Burst)
	}
	if err := fs.Parse([]string{"--qps=0"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "--qps and --burst") {
		t.Errorf("Validate = %v, want an error naming --qps and --burst", err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	data := "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: https://127.0.0.1:6443}}]\n" +
		"contexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\nusers: [{name: u, user: {token: t}}]\n"
	if err := os.WriteFile(kubeconfig, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse([]string{"--qps=7", "--burst=9", "--kubeconfig=" + kubeconfig}); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	cfg, err := c.RESTConfig("agent")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.QPS != 7 || cfg.Burst != 9 || cfg.UserAgent != "agent" || cfg.Host != "https://127.0.0.1:6443" {
		t.Errorf("rest config: qps %v burst %d agent %q host %q", cfg.QPS, cfg.Burst, cfg.UserAgent, cfg.Host)
	}
}
