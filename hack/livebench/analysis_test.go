package main

import (
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

func sec(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

func TestSummarize(t *testing.T) {
	s := summarize([]float64{5, 1, 3, 2, 4})
	if s.Count != 5 || s.Min != 1 || s.Median != 3 || s.P99 != 5 || s.Max != 5 || s.Mean != 3 {
		t.Errorf("summarize = %+v", s)
	}
	if got := summarize(nil); got != (Summary{}) {
		t.Errorf("summarize(nil) = %+v, want zero", got)
	}
}

func TestAttribute(t *testing.T) {
	tests := []struct {
		name string
		pods []PodTimes
		incs []Increase
		want map[string]float64 // pod -> increase second; absent: uncovered
	}{{
		name: "+1 then the rest, in unschedulable order",
		pods: []PodTimes{{Name: "b", Created: sec(0), Unschedulable: sec(0.6)}, {Name: "a", Created: sec(0.1), Unschedulable: sec(0.5)},
			{Name: "c", Created: sec(0.2), Unschedulable: sec(0.7)}},
		incs: []Increase{{At: sec(3), Delta: 2}, {At: sec(1), Delta: 1}},
		want: map[string]float64{"a": 1, "b": 3, "c": 3},
	}, {
		name: "never unschedulable pods sort by creation; too few nodes leave pods uncovered",
		pods: []PodTimes{{Name: "a", Created: sec(0)}, {Name: "b", Created: sec(1)}},
		incs: []Increase{{At: sec(2), Delta: 1}},
		want: map[string]float64{"a": 2},
	}, {
		name: "marked pods take the increases first; a pod never marked takes what is left",
		pods: []PodTimes{{Name: "never", Created: sec(0)}, {Name: "marked", Created: sec(0.1), Unschedulable: sec(0.5)}},
		incs: []Increase{{At: sec(1), Delta: 1}, {At: sec(2), Delta: 1}},
		want: map[string]float64{"marked": 1, "never": 2},
	}, {
		name: "an increase before a pod's mark does not cover it; a pod never marked takes it",
		pods: []PodTimes{{Name: "marked", Created: sec(0), Unschedulable: sec(2)}, {Name: "never", Created: sec(0.5)}},
		incs: []Increase{{At: sec(1), Delta: 1}, {At: sec(3), Delta: 1}},
		want: map[string]float64{"marked": 3, "never": 1},
	}, {
		name: "a twin marked after the increase that asked for its node takes that increase's leftover",
		pods: []PodTimes{{Name: "first", Created: sec(0), Unschedulable: sec(0.1)}, {Name: "late", Created: sec(0), Unschedulable: sec(0.9)},
			{Name: "never", Created: sec(0)}},
		incs: []Increase{{At: sec(0.5), Delta: 3}},
		want: map[string]float64{"first": 0.5, "late": 0.5, "never": 0.5},
	}, {
		name: "a pod marked after its burst's increase takes that one, not the next burst's",
		pods: []PodTimes{{Name: "a", Burst: 0, Created: sec(0), Unschedulable: sec(0.1)}, {Name: "late", Burst: 0, Created: sec(0), Unschedulable: sec(0.9)},
			{Name: "b", Burst: 1, Created: sec(10), Unschedulable: sec(10.1)}},
		incs: []Increase{{At: sec(0.5), Delta: 2}, {At: sec(10.5), Delta: 1}},
		want: map[string]float64{"a": 0.5, "late": 0.5, "b": 10.5},
	}, {
		name: "an autoscaler slower than the interval: a burst's pods take a later burst's increase",
		pods: []PodTimes{{Name: "a", Burst: 0, Created: sec(0), Unschedulable: sec(0.1)}, {Name: "b", Burst: 1, Created: sec(10), Unschedulable: sec(10.1)}},
		incs: []Increase{{At: sec(12), Delta: 2}},
		want: map[string]float64{"a": 12, "b": 12},
	}, {
		name: "an increase before a pod's creation does not cover it",
		pods: []PodTimes{{Name: "a", Created: sec(10), Unschedulable: sec(11)}},
		incs: []Increase{{At: sec(5), Delta: 3}, {At: sec(12), Delta: 1}},
		want: map[string]float64{"a": 12},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			attribute(tt.pods, tt.incs)
			for _, p := range tt.pods {
				want, ok := tt.want[p.Name]
				switch {
				case !ok && !p.Increase.IsZero():
					t.Errorf("pod %s covered at %v, want uncovered", p.Name, p.Increase)
				case ok && !p.Increase.Equal(sec(want)):
					t.Errorf("pod %s covered at %v, want %v", p.Name, p.Increase, sec(want))
				}
			}
		})
	}
}

func TestLoopsFromSamples(t *testing.T) {
	samples := []Sample{
		{At: sec(0), Loops: 1, LoopSeconds: 0.5, CPUSeconds: 2},
		{At: sec(1), Loops: 1, LoopSeconds: 0.5, CPUSeconds: 2.1},
		{At: sec(2), Loops: 2, LoopSeconds: 0.7, CPUSeconds: 2.3, Functions: map[string]float64{"scaleUp": 0.1, "loopWait": 5}},
		{At: sec(3), Loops: 4, LoopSeconds: 1.3, CPUSeconds: 2.7, Functions: map[string]float64{"scaleUp": 0.5, "loopWait": 6}},
	}
	reqs := []Request{{At: sec(-1)}, {At: sec(0.5)}, {At: sec(1.5)}, {At: sec(2.5)}, {At: sec(2.6)}, {At: sec(2.7)}, {At: sec(2.8)}}
	ls := loops(samples, reqs)
	want := []Loop{{End: sec(2), Seconds: 0.2, CPUSeconds: 0.3, Requests: 2}, {End: sec(3), Seconds: 0.3, CPUSeconds: 0.2, Requests: 2},
		{End: sec(3), Seconds: 0.3, CPUSeconds: 0.2, Requests: 2}}
	if len(ls) != len(want) {
		t.Fatalf("loops = %+v, want %+v", ls, want)
	}
	for i := range ls {
		if !ls[i].End.Equal(want[i].End) || !near(ls[i].Seconds, want[i].Seconds) || !near(ls[i].CPUSeconds, want[i].CPUSeconds) ||
			ls[i].Requests != want[i].Requests {
			t.Errorf("loop %d = %+v, want %+v", i, ls[i], want[i])
		}
	}
	if got := ls[0].Functions; len(got) != 1 || !near(got["scaleUp"], 0.1) {
		t.Errorf("loop 0 functions = %v, want scaleUp 0.1 (loopWait is not a part)", got)
	}
	if got := ls[2].Functions; len(got) != 1 || !near(got["scaleUp"], 0.2) {
		t.Errorf("loop 2 functions = %v, want scaleUp 0.2 (shared by the two loops)", got)
	}
	ws := burstWindows([]PodTimes{{Burst: 0, Created: sec(2.5), Increase: sec(2.9)}}, 1, func(int) time.Time { return sec(100) }, time.Second)
	markBurst(ls, ws)
	if ls[0].Burst || !ls[1].Burst {
		t.Errorf("burst marks = %v %v, want false true", ls[0].Burst, ls[1].Burst)
	}
	if s := summarizeLoops(ls, true); s.Seconds.Count != 2 || !near(s.CPUMillisPerLoop, 200) || s.RequestsPerLoop != 2 {
		t.Errorf("burst loop summary = %+v", s)
	}
	// A loop that began in the window (the window ends at 3.9 s) and ended
	// after it is a burst loop; one that began after it is not.
	late := []Loop{{End: sec(5), Seconds: 1.5}, {End: sec(5), Seconds: 1}}
	markBurst(late, ws)
	if !late[0].Burst || late[1].Burst {
		t.Errorf("burst marks of late loops = %v %v, want true false", late[0].Burst, late[1].Burst)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestLoopTotals(t *testing.T) {
	text := `# HELP cluster_autoscaler_function_duration_seconds x
cluster_autoscaler_function_duration_seconds_bucket{function="main",le="0.01"} 1
cluster_autoscaler_function_duration_seconds_sum{function="main"} 1.25
cluster_autoscaler_function_duration_seconds_count{function="main"} 7
cluster_autoscaler_function_duration_seconds_sum{function="scaleUp"} 9
`
	count, sum, parts, err := loopTotals(strings.NewReader(text))
	if err != nil || count != 7 || sum != 1.25 || len(parts) != 1 || parts["scaleUp"] != 9 {
		t.Errorf("loopTotals = %v %v %v %v, want 7 1.25 map[scaleUp:9] nil", count, sum, parts, err)
	}
	if _, _, _, err := loopTotals(strings.NewReader(`cluster_autoscaler_function_duration_seconds_sum{function="main"} x`)); err == nil {
		t.Error("a malformed value parsed without error")
	}
}

func TestProcParsers(t *testing.T) {
	cpu, err := parseStatCPU("4242 (kscale (x)) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 12 0 1 1 1")
	if err != nil || cpu != 3 {
		t.Errorf("parseStatCPU = %v %v, want 3 nil", cpu, err)
	}
	if _, err := parseStatCPU("4242 (x) S 1"); err == nil {
		t.Error("a short stat parsed without error")
	}
	rss, hwm, err := parseStatusMemory("Name:\tkscale\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n")
	if err != nil || rss != 1<<20 || hwm != 2<<20 {
		t.Errorf("parseStatusMemory = %v %v %v", rss, hwm, err)
	}
	if _, _, err := parseStatusMemory("VmHWM:\t2048 MB\n"); err == nil {
		t.Error("a status in MB parsed without error")
	}
}

func TestParseAudit(t *testing.T) {
	log := `{"stage":"ResponseComplete","verb":"create","user":{"username":"livebench-autoscaler"},"objectRef":{"resource":"nodes"},"requestReceivedTimestamp":"2026-11-27T12:00:01.500000Z"}
{"stage":"ResponseComplete","verb":"get","user":{"username":"someone-else"},"objectRef":{"resource":"nodes"},"requestReceivedTimestamp":"2026-11-27T12:00:02Z"}
{"stage":"ResponseComplete","verb":"update","user":{"username":"livebench-autoscaler"},"objectRef":{"resource":"nodes","subresource":"status"},"requestReceivedTimestamp":"2026-11-27T12:00:03Z"}
`
	reqs, err := parseAudit(strings.NewReader(log), AutoscalerUser)
	if err != nil || len(reqs) != 2 {
		t.Fatalf("parseAudit = %v %v, want 2 requests", reqs, err)
	}
	if got := countRequests(reqs, t0, time.Time{}); got["create nodes"] != 1 || got["update nodes/status"] != 1 {
		t.Errorf("countRequests = %v", got)
	}
	if got := countRequests(reqs, t0, sec(3)); got["create nodes"] != 1 || got["update nodes/status"] != 0 {
		t.Errorf("countRequests before 3 s = %v, want the create only (the window's end is excluded)", got)
	}
	if incs := nodeCreates(reqs, t0); len(incs) != 1 || !incs[0].At.Equal(sec(1.5)) {
		t.Errorf("nodeCreates = %v", incs)
	}
	if _, err := parseAudit(strings.NewReader("{}\nnot json\n"), AutoscalerUser); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("parseAudit of a bad line = %v, want an error naming line 2", err)
	}
}

func TestSchedulerMarks(t *testing.T) {
	log := `{"stage":"ResponseComplete","verb":"patch","user":{"username":"admin"},"objectRef":{"resource":"pods","subresource":"status","name":"p1"},"requestReceivedTimestamp":"2026-11-27T12:00:02Z"}
{"stage":"ResponseComplete","verb":"patch","user":{"username":"admin"},"objectRef":{"resource":"pods","subresource":"status","name":"p1"},"requestReceivedTimestamp":"2026-11-27T12:00:01Z"}
{"stage":"ResponseComplete","verb":"patch","user":{"username":"admin"},"objectRef":{"resource":"pods","subresource":"status","name":"p2"},"requestReceivedTimestamp":"2026-11-27T12:00:03Z"}
{"stage":"ResponseComplete","verb":"create","user":{"username":"admin"},"objectRef":{"resource":"pods","subresource":"binding","name":"p3"},"requestReceivedTimestamp":"2026-11-27T12:00:03Z"}
`
	reqs, err := parseAudit(strings.NewReader(log), "admin")
	if err != nil {
		t.Fatal(err)
	}
	marks := schedulerMarks(reqs)
	if len(marks) != 2 || !marks["p1"].Equal(sec(1)) || !marks["p2"].Equal(sec(3)) {
		t.Fatalf("schedulerMarks = %v, want p1 at its first patch and p2", marks)
	}
	pods := []PodTimes{{Name: "p1", Unschedulable: sec(1.2)}, {Name: "p2"}, {Name: "p3"}}
	if n := fillMarks(pods, marks); n != 1 || !pods[0].Unschedulable.Equal(sec(1.2)) || !pods[1].Unschedulable.Equal(sec(3)) || !pods[2].Unschedulable.IsZero() {
		t.Errorf("fillMarks = %d, pods %+v; want only p2 filled (the watch saw p1, nobody marked p3)", n, pods)
	}
}

// TestLatenciesClampIncreaseBeforeMark: a pod whose node was asked for
// before its mark counts 0 s unschedulable -> increase and is counted.
func TestLatenciesClampIncreaseBeforeMark(t *testing.T) {
	var r Report
	r.latencies([]PodTimes{{Name: "a", Created: sec(0), Unschedulable: sec(0.2), Increase: sec(0.5)},
		{Name: "b", Created: sec(0), Unschedulable: sec(0.9), Increase: sec(0.5)}})
	if r.IncreasedBeforeMark != 1 || !near(r.UnschedulableToIncrease.Min, 0) || !near(r.UnschedulableToIncrease.Max, 0.3) {
		t.Fatalf("before mark %d, unschedulable -> increase %+v; want 1, min 0, max 0.3", r.IncreasedBeforeMark, r.UnschedulableToIncrease)
	}
	if !near(r.CreateToIncrease.Max, 0.5) {
		t.Fatalf("create -> increase %+v, want max 0.5", r.CreateToIncrease)
	}
}
