package main

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Burst kinds: how the pending pods of a burst constrain their placement.
// Every kind needs one new node per pod, so a burst of B pods asks for B
// nodes in every mix.
const (
	// KindPlain pods request more CPU than any existing node has free.
	KindPlain = "plain"
	// KindSpread pods add a hostname topology spread constraint (maxSkew 1).
	KindSpread = "spread"
	// KindAntiAffinity pods repel each other by hostname and request less CPU.
	KindAntiAffinity = "anti-affinity"
)

var kinds = []string{KindPlain, KindSpread, KindAntiAffinity}

// Config is one run of the harness.
type Config struct {
	// Nodes is the number of Ready nodes created before the autoscaler starts.
	Nodes int `json:"nodes"`
	// Pods is the number of running pods bound to them.
	Pods int `json:"pods"`
	// Groups is the number of node groups the nodes are split across.
	Groups int `json:"groups"`
	// PodsPerOwner is how many running pods share one ReplicaSet.
	PodsPerOwner int `json:"podsPerOwner"`
	// BurstSize is the number of pending pods per burst.
	BurstSize int `json:"burstSize"`
	// Bursts is the number of bursts.
	Bursts int `json:"bursts"`
	// Interval is the time between the starts of two bursts.
	Interval time.Duration `json:"interval"`
	// Owners is the number of ReplicaSets the pods of one burst belong to.
	Owners int `json:"owners"`
	// Mix are the burst kinds, used in turn.
	Mix []string `json:"mix"`
	// Idle is how long the harness watches the idle autoscaler after its
	// first loop, before the first burst.
	Idle time.Duration `json:"idle"`
	// Settle bounds the wait for the last burst's increases.
	Settle time.Duration `json:"settle"`
	// Workers is the number of parallel writers of the harness's own client.
	Workers int `json:"workers"`
	// Kscale is the kscale binary; Upstream, when set, an upstream
	// cluster-autoscaler kwok binary to measure instead.
	Kscale   string `json:"kscale,omitempty"`
	Upstream string `json:"upstream,omitempty"`
	// ExtraArgs are appended to the autoscaler's flags (default flags otherwise).
	ExtraArgs []string `json:"extraArgs,omitempty"`
	// CPUProfile, when set, is where the autoscaler's CPU profile over the
	// bursts (from the first burst's start, Bursts x Interval long) is
	// written; the autoscaler then runs with --profiling.
	CPUProfile string `json:"cpuProfile,omitempty"`
	// ScrapeInterval is how often the autoscaler's /metrics and /proc are read.
	ScrapeInterval time.Duration `json:"scrapeInterval"`
	// FirstLoopTimeout bounds the wait for the autoscaler's first loop.
	FirstLoopTimeout time.Duration `json:"firstLoopTimeout"`
}

// presets are the documented sizes (SIZE=200|1k|5k).
var presets = map[string]Config{
	"200": {Nodes: 200, Pods: 6000, BurstSize: 20, Bursts: 3, Interval: 30 * time.Second},
	"1k":  {Nodes: 1000, Pods: 30000, BurstSize: 50, Bursts: 5, Interval: 45 * time.Second},
	"5k":  {Nodes: 5000, Pods: 150000, BurstSize: 50, Bursts: 5, Interval: 60 * time.Second},
}

// Preset returns the named size preset.
func Preset(name string) (Config, error) {
	c, ok := presets[name]
	if !ok {
		return Config{}, fmt.Errorf("--size: unknown size %q (want 200, 1k or 5k)", name)
	}
	return c, nil
}

// Default fills unset fields.
func (c *Config) Default() {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.Groups, 2)
	def(&c.PodsPerOwner, 300)
	def(&c.Owners, 1)
	def(&c.Workers, 128)
	if len(c.Mix) == 0 {
		c.Mix = []string{KindPlain}
	}
	durations := []struct {
		v *time.Duration
		d time.Duration
	}{{&c.Idle, 25 * time.Second}, {&c.Settle, 60 * time.Second}, {&c.ScrapeInterval, 100 * time.Millisecond},
		{&c.FirstLoopTimeout, 5 * time.Minute}}
	for _, d := range durations {
		if *d.v == 0 {
			*d.v = d.d
		}
	}
}

// Validate names the first invalid field by its flag.
func (c *Config) Validate() error {
	var errs []error
	positive := map[string]int{"--nodes": c.Nodes, "--groups": c.Groups, "--pods-per-owner": c.PodsPerOwner,
		"--burst-size": c.BurstSize, "--bursts": c.Bursts, "--owners": c.Owners, "--workers": c.Workers}
	for _, name := range slices.Sorted(maps.Keys(positive)) {
		if positive[name] <= 0 {
			errs = append(errs, fmt.Errorf("%s: must be positive, got %d", name, positive[name]))
		}
	}
	if c.Pods < c.Nodes {
		errs = append(errs, fmt.Errorf("--pods: %d pods on %d nodes; want at least one per node, so that no pending pod fits an existing node", c.Pods, c.Nodes))
	}
	if c.Nodes > 0 && c.Pods/c.Nodes > maxPodsPerNode {
		errs = append(errs, fmt.Errorf("--pods: %d pods on %d nodes is more than %d per node", c.Pods, c.Nodes, maxPodsPerNode))
	}
	if c.Groups > c.Nodes && c.Nodes > 0 {
		errs = append(errs, fmt.Errorf("--groups: %d groups for %d nodes; want at most one group per node", c.Groups, c.Nodes))
	}
	if c.Owners > c.BurstSize && c.BurstSize > 0 {
		errs = append(errs, fmt.Errorf("--owners: %d owners for bursts of %d pods", c.Owners, c.BurstSize))
	}
	for _, k := range c.Mix {
		if !slices.Contains(kinds, k) {
			errs = append(errs, fmt.Errorf("--mix: unknown kind %q (want %s)", k, strings.Join(kinds, ", ")))
		}
	}
	if c.Interval <= 0 {
		errs = append(errs, fmt.Errorf("--interval: must be positive, got %s", c.Interval))
	}
	if c.ScrapeInterval < 10*time.Millisecond {
		errs = append(errs, fmt.Errorf("--scrape-interval: must be at least 10ms, got %s", c.ScrapeInterval))
	}
	if c.Idle < 0 || c.Settle <= 0 || c.FirstLoopTimeout <= 0 {
		errs = append(errs, errors.New("--idle must not be negative; --settle and --first-loop-timeout must be positive"))
	}
	if c.Kscale == "" && c.Upstream == "" {
		errs = append(errs, errors.New("--kscale: the kscale binary is required (or --upstream)"))
	}
	return errors.Join(errs...)
}

// Autoscaler names the process under test.
func (c *Config) Autoscaler() string {
	if c.Upstream != "" {
		return "upstream-cluster-autoscaler"
	}
	return "kscale"
}
