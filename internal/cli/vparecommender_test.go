package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/kscale/kscale/internal/vpa/recommender"
)

func TestVPARecommenderGardenerFlagDefaults(t *testing.T) {
	cmd := newVPARecommenderCommand()
	// Every Gardener recommender setting (vpa-hpa.md §7) with its default.
	want := map[string]string{
		"recommendation-margin-fraction":               "0.15",
		"recommender-interval":                         "1m0s",
		"target-cpu-percentile":                        "0.9",
		"recommendation-lower-bound-cpu-percentile":    "0.5",
		"recommendation-upper-bound-cpu-percentile":    "0.95",
		"target-memory-percentile":                     "0.9",
		"recommendation-lower-bound-memory-percentile": "0.5",
		"recommendation-upper-bound-memory-percentile": "0.95",
		"cpu-histogram-decay-half-life":                "24h0m0s",
		"memory-histogram-decay-half-life":             "24h0m0s",
		"memory-aggregation-interval":                  "24h0m0s",
		"memory-aggregation-interval-count":            "8",
		"pod-recommendation-min-cpu-millicores":        "25",
		"pod-recommendation-min-memory-mb":             "250",
		"memory-saver":                                 "false",
		"oom-bump-up-ratio":                            "1.2",
		"oom-min-bump-up-bytes":                        "1.048576e+08",
		"checkpoints-gc-interval":                      "10m0s",
		"checkpoints-timeout":                          "1m0s",
		"confidence-interval-cpu":                      "24h0m0s",
		"confidence-interval-memory":                   "24h0m0s",
		"update-worker-count":                          "10",
		"recommender-name":                             "default",
		"history-length":                               "8d",
		"history-resolution":                           "1h",
		"kube-api-qps":                                 "50",
		"kube-api-burst":                               "100",
	}
	expectDefaults(t, cmd.Flags().Lookup, want)
}

func TestVPARecommenderCompleteDefaults(t *testing.T) {
	o := &recommender.Flags{}
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse([]string{"--pod-recommendation-min-memory-mb=10", "--container-recommendation-max-allowed-cpu=2"}); err != nil {
		t.Fatal(err)
	}
	if err := o.Complete(); err != nil {
		t.Fatal(err)
	}
	cfg := o.Config()
	if cfg.Estimator.PodMinMemoryBytes != 10*1024*1024 || cfg.Estimator.MaxAllowedCPUMillicores != 2000 {
		t.Fatalf("converted flags = %+v", cfg.Estimator)
	}
	if cfg.Interval != time.Minute || cfg.Estimator.MarginFraction != 0.15 {
		t.Fatalf("defaults lost: %+v", cfg)
	}
}

func TestVPARecommenderBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--storage=etcd"}, "--storage"},
		{[]string{"--target-cpu-percentile=2"}, "--target-cpu-percentile"},
		{[]string{"--container-recommendation-max-allowed-cpu=lots"}, "--container-recommendation-max-allowed-cpu"},
		{[]string{"--storage=prometheus"}, "prometheus-address"},
		{[]string{"--storage=prometheus", "--prometheus-address=http://p", "--history-length=eight"}, "--history-length"},
		{[]string{"--recommender-interval=0s"}, "--recommender-interval"},
		{[]string{"--memory-aggregation-interval-count=-1"}, "memoryAggregationIntervalCount"},
		{[]string{"--memory-aggregation-interval-count=0"}, "memoryAggregationIntervalCount"},
		{[]string{"--leader-elect", "--leader-elect-lease-duration=1s"}, "leader-elect-lease-duration"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out bytes.Buffer
			cmd := newVPARecommenderCommand()
			cmd.SetOut(&out)
			cmd.SetErr(&out)
			cmd.SilenceUsage, cmd.SilenceErrors = true, true
			cmd.SetArgs(tt.args)
			err := cmd.Execute()
			var ue *UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Execute = %v; want a UsageError naming %s", err, tt.want)
			}
		})
	}
	var ue *UsageError
	o := &recommender.Flags{}
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse([]string{"--storage=bad"}); err != nil {
		t.Fatal(err)
	}
	if err := o.Complete(); err == nil || errors.As(err, &ue) {
		t.Fatalf("complete = %v, want a plain error (wrapped as UsageError by RunE)", err)
	}
}
