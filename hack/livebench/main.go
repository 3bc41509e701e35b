package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"k8s.io/klog/v2"
)

// usageError is a bad flag: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// options are the command line: the run's Config and where output goes.
type options struct {
	cfg       Config
	jsonOut   string
	keepDir   bool
	reanalyze string
}

// parseFlags reads the command line; arguments after "--" go to the autoscaler.
func parseFlags(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("livebench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	size := fs.String("size", "1k", "size preset: 200, 1k (1,000 nodes / 30,000 pods) or 5k (5,000 / 150,000)")
	var o options
	c := &o.cfg
	fs.IntVar(&c.Nodes, "nodes", 0, "nodes before the autoscaler starts (default: the preset's)")
	fs.IntVar(&c.Pods, "pods", -1, "running pods bound to them (default: the preset's)")
	fs.IntVar(&c.Groups, "groups", 2, "node groups the nodes are split across")
	fs.IntVar(&c.PodsPerOwner, "pods-per-owner", 300, "running pods per ReplicaSet")
	fs.IntVar(&c.BurstSize, "burst-size", 0, "pending pods per burst (default: the preset's)")
	fs.IntVar(&c.Bursts, "bursts", 0, "number of bursts (default: the preset's)")
	fs.DurationVar(&c.Interval, "interval", 0, "time between burst starts (default: the preset's)")
	fs.IntVar(&c.Owners, "owners", 1, "ReplicaSets the pods of one burst belong to")
	mix := fs.String("mix", KindPlain, "burst kinds used in turn, comma-separated: "+strings.Join(kinds, ", "))
	fs.DurationVar(&c.Idle, "idle", 25*time.Second, "idle time watched after the first loop, before the first burst")
	fs.DurationVar(&c.Settle, "settle", time.Minute, "longest wait for the last burst's increases")
	fs.IntVar(&c.Workers, "workers", 128, "parallel writers of the harness's own client")
	fs.StringVar(&c.Kscale, "kscale", "bin/kscale", "the kscale binary")
	fs.StringVar(&c.Upstream, "upstream", "", "measure this upstream cluster-autoscaler kwok binary instead (hack/livebench/build-upstream-ca.sh)")
	fs.DurationVar(&c.ScrapeInterval, "scrape-interval", 100*time.Millisecond, "how often the autoscaler's /metrics and /proc are read")
	fs.DurationVar(&c.FirstLoopTimeout, "first-loop-timeout", 5*time.Minute, "longest wait for the autoscaler's first loop")
	fs.StringVar(&o.jsonOut, "json", "", "also write the report as JSON to this file (- for stdout instead of text)")
	fs.StringVar(&c.CPUProfile, "cpuprofile", "", "write the autoscaler's CPU profile over the bursts to this file (runs it with --profiling)")
	fs.BoolVar(&o.keepDir, "keep-dir", false, "keep the run's directory (audit log, autoscaler log) and print its path")
	fs.StringVar(&o.reanalyze, "reanalyze", "", "run nothing: read this JSON report, attribute its pods' increases again with the current rule and print the report")
	if err := fs.Parse(args); err != nil {
		return nil, usageError{err}
	}
	c.ExtraArgs = fs.Args()
	preset, err := Preset(*size)
	if err != nil {
		return nil, usageError{err}
	}
	fill := func(v *int, p int) {
		if *v == 0 {
			*v = p
		}
	}
	fill(&c.Nodes, preset.Nodes)
	fill(&c.BurstSize, preset.BurstSize)
	fill(&c.Bursts, preset.Bursts)
	if c.Pods < 0 {
		c.Pods = preset.Pods
	}
	if c.Interval == 0 {
		c.Interval = preset.Interval
	}
	c.Mix = strings.Split(*mix, ",")
	if c.Upstream != "" {
		c.Kscale = ""
	}
	c.Default()
	if err := c.Validate(); err != nil {
		return nil, usageError{err}
	}
	return &o, nil
}

func main() {
	klog.InitFlags(nil)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			_, _ = fmt.Fprintln(stderr, "livebench:", err)
		}
		return 2
	}
	if o.reanalyze != "" {
		rep, err := reanalyze(o.reanalyze)
		if err == nil {
			err = write(rep, o.jsonOut, stdout)
		}
		if err != nil {
			_, _ = fmt.Fprintln(stderr, "livebench:", err)
			return 1
		}
		return 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx = klog.NewContext(ctx, klog.Background().WithName("livebench"))
	dir, err := os.MkdirTemp("", "livebench-")
	if err != nil {
		_, _ = fmt.Fprintln(stderr, "livebench: creating the run directory:", err)
		return 1
	}
	if o.keepDir {
		_, _ = fmt.Fprintln(stderr, "livebench: run directory", dir)
	} else {
		defer func() { _ = os.RemoveAll(dir) }()
	}
	rep, err := Run(ctx, o.cfg, dir)
	if err != nil {
		_, _ = fmt.Fprintln(stderr, "livebench:", err)
		return 1
	}
	if err := write(rep, o.jsonOut, stdout); err != nil {
		_, _ = fmt.Fprintln(stderr, "livebench:", err)
		return 1
	}
	return 0
}

// write prints the text report (or JSON with jsonOut "-") and writes the
// JSON file.
func write(rep *Report, jsonOut string, stdout io.Writer) error {
	if jsonOut == "-" {
		return rep.WriteJSON(stdout)
	}
	if err := rep.WriteText(stdout); err != nil {
		return err
	}
	if jsonOut == "" {
		return nil
	}
	f, err := os.Create(jsonOut)
	if err != nil {
		return fmt.Errorf("creating %s: %w", jsonOut, err)
	}
	if err := rep.WriteJSON(f); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// reanalyze reads a JSON report and computes its per-pod latencies again
// from its pods' times and increases with the current attribution.
func reanalyze(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", path, err)
	}
	if len(rep.PodTimes) == 0 {
		return nil, fmt.Errorf("%s lists no podTimes (reports before session 9 lack them)", path)
	}
	pods := rep.PodTimes
	for i := range pods {
		pods[i].Increase = time.Time{}
	}
	rep.Uncovered, rep.IncreasedBeforeMark = 0, 0
	attribute(pods, rep.Increases)
	rep.latencies(pods)
	start := pods[0].Created // the first burst's start, within a pod creation
	for _, p := range pods {
		if p.Created.Before(start) {
			start = p.Created
		}
	}
	rep.classifyLoops(&rep.Config, pods, start)
	return &rep, nil
}
