package cli

import (
	"errors"
	"strings"
	"testing"
)

func TestCustomMetricsFlagDefaults(t *testing.T) {
	cmd := newCustomMetricsCommand()
	want := map[string]string{
		"scrape-period":                  "1m0s",
		"scrape-timeout":                 "0s",
		"max-concurrent-scrapes":         "50",
		"min-sample-gap":                 "10s",
		"max-sample-age":                 "1m30s",
		"max-sample-gap":                 "10m0s",
		"scrape-port":                    "443",
		"scrape-max-body-bytes":          "20971520",
		"pod-selector":                   "app=kubernetes,role=apiserver",
		"namespace-pattern":              "^shoot-",
		"token-secret-name":              "shoot-access-gardener-custom-metrics",
		"ca-secret-selector":             "name in (ca,ca-bundle)",
		"leader-election":                "true",
		"leader-election-id":             "gardener-custom-metrics-leader-election",
		"leader-election-lease-duration": "15s",
		"access-port":                    "6443",
		"metrics-bind-address":           ":8080",
		"health-bind-address":            ":8081",
		"metric-names":                   "[shoot:apiserver_request_total:sum,shoot:apiserver_request_total:rate]",
		// The library's server flags.
		"secure-port":               "6443",
		"authentication-kubeconfig": "",
		"authorization-kubeconfig":  "",
		"tls-cert-file":             "",
		"lister-kubeconfig":         "",
	}
	expectDefaults(t, cmd.Flags().Lookup, want)
}

func TestCustomMetricsBadFlags(t *testing.T) {
	valid := []string{"--namespace=garden", "--access-ip=10.0.0.1"}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bad pod selector", []string{"--pod-selector=app in (("}, "--pod-selector"},
		{"bad namespace pattern", []string{"--namespace-pattern=(["}, "--namespace-pattern"},
		{"bad CA selector", []string{"--ca-secret-selector=!!"}, "--ca-secret-selector"},
		{"zero period", []string{"--scrape-period=0s"}, "--scrape-period"},
		{"timeout above period", []string{"--scrape-timeout=2m"}, "--scrape-timeout"},
		{"no concurrency", []string{"--max-concurrent-scrapes=0"}, "--max-concurrent-scrapes"},
		{"min gap too close to period", []string{"--scrape-period=10s", "--min-sample-gap=10s"}, "--min-sample-gap"},
		{"bad scrape port", []string{"--scrape-port=70000"}, "--scrape-port"},
		{"bad body cap", []string{"--scrape-max-body-bytes=0"}, "--scrape-max-body-bytes"},
		{"no namespace with leader election", []string{"--namespace=", "--access-ip=10.0.0.1"}, "--namespace"},
		{"bad access IP", []string{"--namespace=garden", "--access-ip=pod"}, "--access-ip"},
		{"bad election timings", []string{"--leader-election-renew-deadline=20s"}, "--leader-election-lease-duration"},
		{"self-signed and files", []string{"--self-signed-cert-secret=tls", "--tls-cert-file=a", "--tls-private-key-file=b"}, "--self-signed-cert-secret: excludes --tls-cert-file"},
		{"self-signed without namespace", []string{"--leader-election=false", "--namespace=", "--self-signed-cert-secret=tls"}, "--namespace: required with --self-signed-cert-secret"},
		{"self-signed validity too short", []string{"--self-signed-cert-secret=tls", "--self-signed-cert-validity=2m"}, "--self-signed-cert-validity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := newCustomMetricsCommand()
			cmd.SetArgs(append(append([]string{}, valid...), tt.args...))
			cmd.SilenceUsage, cmd.SilenceErrors = true, true
			err := cmd.Execute()
			var usage *UsageError
			if !errors.As(err, &usage) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Execute() error = %v, want a UsageError naming %s", err, tt.want)
			}
		})
	}
}
