package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Sample is one reading of the autoscaler's loop metric and its process.
type Sample struct {
	// At is when the reading was taken.
	At time.Time
	// Loops and LoopSeconds are function_duration_seconds{function="main"}'s
	// _count and _sum.
	Loops       float64
	LoopSeconds float64
	// Functions are the other functions' function_duration_seconds _sum
	// (the loop's timed parts and, for kscale, loopWait).
	Functions map[string]float64
	// CPUSeconds is utime+stime from /proc/PID/stat.
	CPUSeconds float64
	// RSS and HWM are VmRSS and VmHWM from /proc/PID/status, in bytes.
	RSS, HWM int64
}

// loopMetric is the loop duration histogram both autoscalers export.
const loopMetric = "cluster_autoscaler_function_duration_seconds"

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times; 100 on Linux.
const clockTicks = 100

// sampler reads /metrics and /proc every interval until stopped.
type sampler struct {
	url      string
	pid      int
	interval time.Duration
	client   *http.Client

	mu      sync.Mutex
	samples []Sample
	lastErr error
}

func newSampler(address string, pid int, interval time.Duration) *sampler {
	return &sampler{url: "http://" + address + "/metrics", pid: pid, interval: interval, client: &http.Client{Timeout: 5 * time.Second}}
}

// run samples until ctx ends.
func (s *sampler) run(ctx context.Context) {
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		smp, err := s.read(ctx)
		s.mu.Lock()
		if err == nil {
			s.samples = append(s.samples, smp)
		}
		s.lastErr = err
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Samples returns the readings so far and the last error.
func (s *sampler) Samples() ([]Sample, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Sample(nil), s.samples...), s.lastErr
}

func (s *sampler) read(ctx context.Context) (Sample, error) {
	smp := Sample{At: time.Now()}
	var err error
	if smp.CPUSeconds, err = procCPU(s.pid); err != nil {
		return smp, err
	}
	if smp.RSS, smp.HWM, err = procMemory(s.pid); err != nil {
		return smp, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return smp, fmt.Errorf("building metrics request: %w", err)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return smp, fmt.Errorf("reading %s: %w", s.url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return smp, fmt.Errorf("reading %s: %s", s.url, resp.Status)
	}
	smp.Loops, smp.LoopSeconds, smp.Functions, err = loopTotals(resp.Body)
	return smp, err
}

// loopTotals reads the function duration series of a text exposition:
// the main loop's _count and _sum, and every other function's _sum (the
// loop's parts, e.g. scaleUp). A missing series (no loop yet) reads as
// zero.
func loopTotals(r io.Reader) (count, sum float64, parts map[string]float64, err error) {
	parts = map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		isCount := strings.HasPrefix(line, loopMetric+"_count{")
		if !isCount && !strings.HasPrefix(line, loopMetric+"_sum{") {
			continue
		}
		function, ok := functionLabel(line)
		if !ok {
			continue
		}
		v, perr := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if perr != nil {
			return 0, 0, nil, fmt.Errorf("parsing metric line %q: %w", line, perr)
		}
		switch {
		case function == "main" && isCount:
			count = v
		case function == "main":
			sum = v
		case !isCount:
			parts[function] = v
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, nil, fmt.Errorf("reading metrics: %w", err)
	}
	return count, sum, parts, nil
}

// functionLabel returns the value of a series line's function label.
func functionLabel(line string) (string, bool) {
	const key = `function="`
	i := strings.Index(line, key)
	if i < 0 {
		return "", false
	}
	rest := line[i+len(key):]
	j := strings.IndexByte(rest, '"')
	if j < 0 {
		return "", false
	}
	return rest[:j], true
}

// procCPU is the process's user+system CPU time in seconds.
func procCPU(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("reading process stat: %w", err)
	}
	return parseStatCPU(string(data))
}

// parseStatCPU reads utime and stime (fields 14 and 15) of /proc/PID/stat;
// the command name (field 2) may contain spaces, so fields count from its
// closing parenthesis.
func parseStatCPU(stat string) (float64, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("parsing process stat: no command name")
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("parsing process stat: %d fields after the command name, want at least 13", len(f))
	}
	utime, err1 := strconv.ParseUint(f[11], 10, 64)
	stime, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("parsing process stat: utime %q stime %q", f[11], f[12])
	}
	return float64(utime+stime) / clockTicks, nil
}

// procMemory returns VmRSS and VmHWM in bytes.
func procMemory(pid int) (rss, hwm int64, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("reading process status: %w", err)
	}
	return parseStatusMemory(string(data))
}

func parseStatusMemory(status string) (rss, hwm int64, err error) {
	for line := range strings.Lines(status) {
		key, val, ok := strings.Cut(line, ":")
		if !ok || (key != "VmRSS" && key != "VmHWM") {
			continue
		}
		f := strings.Fields(val)
		if len(f) != 2 || f[1] != "kB" {
			return 0, 0, fmt.Errorf("parsing process status: %s: %q", key, strings.TrimSpace(val))
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("parsing process status: %s: %w", key, err)
		}
		if key == "VmRSS" {
			rss = kb << 10
		} else {
			hwm = kb << 10
		}
	}
	if hwm == 0 {
		return 0, 0, fmt.Errorf("parsing process status: no VmHWM")
	}
	return rss, hwm, nil
}
