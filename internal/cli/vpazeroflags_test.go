package cli

import (
	"testing"

	"github.com/spf13/pflag"

	"github.com/kscale/kscale/internal/vpa/recommender"
	"github.com/kscale/kscale/internal/vpa/updater"
)

// TestVPAExplicitZeroFlags checks that an explicit 0 on a VPA flag where
// upstream takes 0 literally stays 0 after the options are completed and the
// component's constructor applies its defaults (upstream registers these
// flags with their defaults and never replaces a parsed value:
// pkg/recommender/config/config.go and pkg/updater/config/config.go of
// vertical-pod-autoscaler v1.7.3).
func TestVPAExplicitZeroFlags(t *testing.T) {
	rec := &recommender.Flags{}
	fs := pflag.NewFlagSet("recommender", pflag.ContinueOnError)
	rec.AddFlags(fs)
	if err := fs.Parse([]string{"--recommendation-margin-fraction=0", "--pod-recommendation-min-cpu-millicores=0",
		"--pod-recommendation-min-memory-mb=0", "--oom-min-bump-up-bytes=0", "--oom-bump-up-ratio=0",
		"--target-cpu-percentile=0", "--recommendation-lower-bound-memory-percentile=0"}); err != nil {
		t.Fatal(err)
	}
	if err := rec.Complete(); err != nil {
		t.Fatal(err)
	}
	cfg := rec.Config()
	cfg.Default() // as recommender.New does
	if err := cfg.Model.Validate(); err != nil {
		t.Fatalf("model config: %v", err)
	}
	e, m := cfg.Estimator, cfg.Model
	for _, v := range []struct {
		flag string
		got  float64
	}{
		{"--recommendation-margin-fraction", e.MarginFraction},
		{"--pod-recommendation-min-cpu-millicores", float64(e.PodMinCPUMillicores)},
		{"--pod-recommendation-min-memory-mb", float64(e.PodMinMemoryBytes)},
		{"--oom-min-bump-up-bytes", m.OOMMinBumpUpBytes},
		{"--oom-bump-up-ratio", m.OOMBumpUpRatio},
		{"--target-cpu-percentile", e.TargetCPUPercentile},
		{"--recommendation-lower-bound-memory-percentile", e.LowerBoundMemoryPercentile},
	} {
		if v.got != 0 {
			t.Errorf("%s=0 runs as %v, want 0", v.flag, v.got)
		}
	}

	upd := &updater.Flags{}
	ufs := pflag.NewFlagSet("updater", pflag.ContinueOnError)
	upd.AddFlags(ufs)
	if err := ufs.Parse([]string{"--min-replicas=0", "--evict-after-oom-threshold=0",
		"--in-recommendation-bounds-eviction-lifetime-threshold=0"}); err != nil {
		t.Fatal(err)
	}
	if err := upd.Complete(); err != nil {
		t.Fatalf("explicit zeros refused: %v", err)
	}
	if c := upd.Config(); c.MinReplicas != 0 || c.Thresholds.EvictAfterOOM != 0 || c.Thresholds.Lifetime != 0 {
		t.Errorf("updater zeros run as min-replicas %d, evict-after-oom-threshold %s, lifetime %s; want 0",
			c.MinReplicas, c.Thresholds.EvictAfterOOM, c.Thresholds.Lifetime)
	}
}
