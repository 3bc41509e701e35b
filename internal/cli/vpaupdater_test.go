package cli

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestVPAUpdaterGardenerFlagDefaults(t *testing.T) {
	cmd := newVPAUpdaterCommand()
	// Every Gardener updater setting (vpa-hpa.md §7) and the other upstream
	// updater flags, with their defaults.
	want := map[string]string{
		"evict-after-oom-threshold": "10m0s",
		"eviction-rate-burst":       "1",
		"eviction-rate-limit":       "-1",
		"eviction-tolerance":        "0.5",
		"updater-interval":          "1m0s",
		"min-replicas":              "2",
		"pod-update-threshold":      "0.1",
		"in-recommendation-bounds-eviction-lifetime-threshold": "12h0m0s",
		"use-admission-controller-status":                      "true",
		"admission-controller-status-lease-timeout":            "1m0s",
		"in-place-skip-disruption-budget":                      "false",
		"kube-api-qps":                                         "50",
		"kube-api-burst":                                       "100",
		"admission-controller-status-lease-name":               "vpa-admission-controller",
		"admission-controller-status-lease-namespace":          "",
		"leader-elect-resource-namespace":                      "kube-system",
		"leader-elect-resource-lock":                           "leases",
	}
	expectDefaults(t, cmd.Flags().Lookup, want)
}

func TestVPAUpdaterBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--eviction-tolerance=2"}, "--eviction-tolerance"},
		{[]string{"--min-replicas=-1"}, "--min-replicas"},
		{[]string{"--updater-interval=0s"}, "--updater-interval"},
		{[]string{"--eviction-rate-burst=0"}, "--eviction-rate-burst"},
		{[]string{"--vpa-object-namespace=a", "--ignored-vpa-object-namespaces=b"}, "set at most one"},
		{[]string{"--leader-elect", "--leader-elect-lease-duration=1s"}, "--leader-elect-lease-duration"},
		{[]string{"--kube-api-qps=0"}, "--kube-api-qps"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			expectUsageError(t, newVPAUpdaterCommand(), tt.args, tt.want)
		})
	}
}

func expectUsageError(t *testing.T, cmd interface {
	SetOut(io.Writer)
	SetErr(io.Writer)
	SetArgs([]string)
	Execute() error
}, args []string, want string) {
	t.Helper()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Execute = %v; want a UsageError naming %s", err, want)
	}
}
