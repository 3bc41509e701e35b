package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/testenv"
)

// Run performs one measurement: control plane, population, the autoscaler,
// idle time, bursts, then the report. dir receives the files (audit log,
// autoscaler log, kubeconfig, cloud config); the caller removes it.
func Run(ctx context.Context, cfg Config, dir string) (*Report, error) {
	cfg.Default()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	log := klog.FromContext(ctx)
	rep := &Report{Autoscaler: cfg.Autoscaler(), Binary: cfg.Kscale, Config: cfg, StartedAt: time.Now().UTC()}
	if cfg.Upstream != "" {
		rep.Binary = cfg.Upstream
	}
	cp, err := startControlPlane(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer cp.stop()
	format, cloudConfig, err := prepareProvider(ctx, cp, &cfg, dir)
	if err != nil {
		return nil, err
	}
	log.Info("Populating the cluster", "nodes", cfg.Nodes, "pods", cfg.Pods)
	pop, err := populate(ctx, cp.client, &cfg, format)
	if err != nil {
		return nil, err
	}
	rep.PopulateSeconds = pop.took.Seconds()
	pods := newTracker()
	if err := watchCluster(ctx, cp.client, pods, newNodeKeeper(cp.client)); err != nil {
		return nil, err
	}
	address, err := freeAddress()
	if err != nil {
		return nil, err
	}
	bin, args, env := autoscalerCommand(&cfg, cp.kubeconfigPath, cloudConfig, address)
	log.Info("Starting the autoscaler", "binary", bin, "args", args)
	proc, err := startAutoscaler(bin, args, env, dir, NewIncreaseParser(cfg.Upstream != "", pop.sizes))
	if err != nil {
		return nil, err
	}
	defer proc.stop(context.WithoutCancel(ctx))
	sctx, stopSampling := context.WithCancel(ctx)
	defer stopSampling()
	smp := newSampler(address, proc.pid(), cfg.ScrapeInterval)
	go smp.run(sctx)
	first, err := waitFirstLoop(ctx, proc, smp, cfg.FirstLoopTimeout)
	if err != nil {
		return nil, err
	}
	rep.FirstLoopSeconds, rep.RSSAtFirstLoopMB = first.At.Sub(proc.started).Seconds(), mb(first.RSS)
	log.Info("First loop", "afterSeconds", rep.FirstLoopSeconds, "rssMB", rep.RSSAtFirstLoopMB)
	if err := sleep(ctx, cfg.Idle); err != nil {
		return nil, err
	}
	var profiled <-chan error
	if cfg.CPUProfile != "" {
		profiled = captureCPUProfile(ctx, address, time.Duration(cfg.Bursts)*cfg.Interval, cfg.CPUProfile)
	}
	start, err := runBursts(ctx, cp, &cfg, pods, proc)
	if err != nil {
		return nil, err
	}
	stopSampling()
	samples, _ := smp.Samples()
	if !proc.running() {
		return nil, fmt.Errorf("the autoscaler exited during the run; log tail:\n%s", proc.logTail())
	}
	final, err := smp.read(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the autoscaler at the end: %w", err)
	}
	samples = append(samples, final)
	if cfg.CPUProfile != "" {
		if err := <-profiled; err != nil {
			return nil, err
		}
	}
	dumpDiagnostics(ctx, cp.client, dir)
	proc.stop(ctx)
	return rep, rep.analyze(&cfg, cp, proc, pods, samples, first, start)
}

// prepareProvider writes what the autoscaler's kwok provider reads (kscale:
// a --cloud-config file; upstream: its two ConfigMaps) and returns the node
// format and the cloud config's path.
func prepareProvider(ctx context.Context, cp *controlPlane, cfg *Config, dir string) (nodeFormat, string, error) {
	groups := groupNames(cfg.Groups)
	maxPerGroup := cfg.Nodes/cfg.Groups + 1 + cfg.Bursts*cfg.BurstSize + 1000
	if cfg.Upstream != "" {
		cms, err := upstreamConfigMaps("kube-system", groups, maxPerGroup)
		if err != nil {
			return nil, "", err
		}
		return upstreamFormat{}, "", createConfigMaps(ctx, cp.client, cms)
	}
	cc := kscaleCloudConfig(groups, maxPerGroup)
	path := filepath.Join(dir, "cloud-config.yaml")
	if err := os.WriteFile(path, []byte(cc), 0o600); err != nil {
		return nil, "", fmt.Errorf("writing cloud config: %w", err)
	}
	f, err := newKscaleFormat(cp.client, cc)
	return f, path, err
}

// waitFirstLoop returns the first sample that counts a loop.
func waitFirstLoop(ctx context.Context, proc *autoscaler, smp *sampler, timeout time.Duration) (Sample, error) {
	deadline := time.Now().Add(timeout)
	for {
		samples, lastErr := smp.Samples()
		for _, s := range samples {
			if s.Loops >= 1 {
				return s, nil
			}
		}
		if !proc.running() {
			return Sample{}, fmt.Errorf("the autoscaler exited before its first loop (%v); log tail:\n%s", proc.waitErr, proc.logTail())
		}
		if time.Now().After(deadline) {
			return Sample{}, fmt.Errorf("no loop within --first-loop-timeout %s (last sample error: %v); log tail:\n%s", timeout, lastErr, proc.logTail())
		}
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return Sample{}, err
		}
	}
}

// runBursts sends the bursts on schedule, then waits until increases cover
// every pending pod or --settle passes; it returns the first burst's start.
func runBursts(ctx context.Context, cp *controlPlane, cfg *Config, pods *tracker, proc *autoscaler) (time.Time, error) {
	start := time.Now()
	for b := range cfg.Bursts {
		if err := sleep(ctx, time.Until(start.Add(time.Duration(b)*cfg.Interval))); err != nil {
			return start, err
		}
		klog.FromContext(ctx).Info("Sending burst", "burst", b, "pods", cfg.BurstSize, "kind", cfg.Mix[b%len(cfg.Mix)])
		if err := sendBurst(ctx, cp.client, cfg, pods, b); err != nil {
			return start, err
		}
	}
	want := cfg.Bursts * cfg.BurstSize
	deadline := time.Now().Add(cfg.Settle)
	for time.Now().Before(deadline) && covered(proc.Increases(), start) < want {
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return start, err
		}
	}
	// One more scan interval's worth of loops after the last increase, and
	// at least the last burst's whole interval: the requests are counted
	// in the bursts' window.
	return start, sleep(ctx, max(min(10*time.Second, time.Until(deadline)), time.Until(burstsEnd(cfg, start))))
}

// burstsEnd is the end of the bursts' window: one interval after the last
// burst's start.
func burstsEnd(cfg *Config, start time.Time) time.Time {
	return start.Add(time.Duration(cfg.Bursts) * cfg.Interval)
}

func covered(incs []Increase, after time.Time) int {
	n := 0
	for _, i := range incs {
		if !i.At.Before(after) {
			n += i.Delta
		}
	}
	return n
}

// analyze fills the report from what the run recorded.
func (r *Report) analyze(cfg *Config, cp *controlPlane, proc *autoscaler, pods *tracker, samples []Sample, first Sample, start time.Time) error {
	reqs, err := readAudit(cp.auditLog, AutoscalerUser)
	if err != nil {
		return err
	}
	r.Signal = "log"
	incs := proc.Increases()
	if len(incs) == 0 {
		r.Signal, incs = "audit-node-create", nodeCreates(reqs, start)
	}
	for _, i := range incs {
		if !i.At.Before(start) {
			r.Increases = append(r.Increases, i)
		}
	}
	r.IncreasesPerBurst = float64(len(r.Increases)) / float64(cfg.Bursts)
	ps := pods.Pods()
	marks, err := readAudit(cp.auditLog, testenv.AdminUser)
	if err != nil {
		return err
	}
	r.MarksFromAudit = fillMarks(ps, schedulerMarks(marks))
	attribute(ps, r.Increases)
	r.latencies(ps)
	r.Loops = loops(samples, reqs)
	r.classifyLoops(cfg, ps, start)
	for i := 1; i < len(samples); i++ {
		if samples[i].Loops-samples[i-1].Loops > 1 {
			r.SampleGaps++
		}
	}
	r.RSSPeakMB = mb(samples[len(samples)-1].HWM)
	r.Requests = countRequests(reqs, start, burstsEnd(cfg, start))
	r.RequestsFromFirstLoop = countRequests(reqs, first.At, time.Time{})
	r.CPUs = runtime.NumCPU()
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(load)); len(f) >= 3 {
			r.LoadAverage = strings.Join(f[:3], " ")
		}
	}
	return nil
}

// classifyLoops marks the loops that ran in a burst's window (start is
// the first burst's) and summarizes the burst and idle loops.
func (r *Report) classifyLoops(cfg *Config, ps []PodTimes, start time.Time) {
	next := func(b int) time.Time { return start.Add(time.Duration(b+1) * cfg.Interval) }
	for i := range r.Loops {
		r.Loops[i].Burst = false
	}
	markBurst(r.Loops, burstWindows(ps, cfg.Bursts, next, 2*time.Second))
	r.BurstLoops, r.IdleLoops = summarizeLoops(r.Loops, true), summarizeLoops(r.Loops, false)
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// freeAddress is a loopback address with a port that was free a moment ago.
func freeAddress() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free port: %w", err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String(), nil
}
