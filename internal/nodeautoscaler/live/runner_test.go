package live_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/backoff"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
	"github.com/kscale/kscale/internal/opsserver"
)

// scriptedLoop stands in for the autoscaler: it takes the loop's view,
// returns the next scripted error and a fixed state, and counts its loops.
type scriptedLoop struct {
	cluster *live.Cluster
	mu      sync.Mutex
	errs    []error
	calls   int
}

func (l *scriptedLoop) RunOnce(ctx context.Context, _ time.Time) error {
	if _, err := l.cluster.View(ctx); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls++
	if len(l.errs) == 0 {
		return nil
	}
	err := l.errs[0]
	l.errs = l.errs[1:]
	return err
}

func (l *scriptedLoop) State() []clusterstate.GroupState {
	return []clusterstate.GroupState{{Group: cloudprovider.NodeGroup{ID: "g", MinSize: 1, MaxSize: 4, TargetSize: 2},
		Readiness: clusterstate.Readiness{Ready: 2},
		Backoff:   backoff.Status{BackedOff: true, Reason: backoff.Reason{Code: "OutOfCapacity"}}}}
}

// PendingCounts counts the unschedulable pods; the scripted loop bypasses
// no scheduler.
func (l *scriptedLoop) PendingCounts(pods *nodeautoscaler.PodIndex) (unschedulable, unprocessed int) {
	for _, p := range pods.Unbound() {
		if nodeautoscaler.IsUnschedulable(p) {
			unschedulable++
		}
	}
	return unschedulable, 0
}

// activityStart is when the scripted loop's scale-up began.
var activityStart = time.Unix(1700000000, 0)

// Activity reports a scale-up of 2s in every loop.
func (l *scriptedLoop) Activity() nodeautoscaler.LoopActivity {
	return nodeautoscaler.LoopActivity{Started: map[string]time.Time{nodeautoscaler.FunctionScaleUp: activityStart},
		Timings: []nodeautoscaler.FunctionTiming{{Function: nodeautoscaler.FunctionScaleUp, Duration: 2 * time.Second}}}
}

// ScaleDownCandidates makes the loop a live.ScaleDownSource.
func (l *scriptedLoop) ScaleDownCandidates() map[string]int { return map[string]int{"g": 3} }

func (l *scriptedLoop) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.calls
}

func TestRunnerLoopsMetricsStatusAndHealth(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	createNamespace(t, "runner")
	c, _ := startCluster(t)
	clk := clocktesting.NewFakeClock(time.Now())
	loop := &scriptedLoop{cluster: c, errs: []error{errors.New("cloud down")}}
	reg := prometheus.NewRegistry()
	health := live.NewHealth(clk, live.HealthTimers{MaxInactivity: time.Minute, MaxFailing: time.Minute})
	r, err := live.NewRunner(live.RunnerConfig{Loop: loop, EmitPerNodeGroupMetrics: true, Cluster: c, Clock: clk, ScanInterval: 10 * time.Second,
		Health: health, Status: live.NewStatusWriter(env.Client, "runner"), Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 2)
	go func() { done <- r.Run(ctx) }()
	go func() { done <- opsserver.Serve(ctx, ln, opsserver.Config{Gatherer: reg, Health: health}) }()
	// The first loop fails, the ticker drives the second, which succeeds.
	waitFor(t, func() bool { return loop.count() >= 1 && clk.HasWaiters() })
	clk.Step(10 * time.Second)
	waitFor(t, func() bool { return loop.count() >= 2 })
	waitFor(t, func() bool {
		cm, err := env.Client.CoreV1().ConfigMaps("runner").Get(ctx, live.StatusConfigMapName, metav1.GetOptions{})
		return err == nil && strings.Contains(cm.Data[live.StatusConfigMapKey], "autoscalerStatus: Running")
	})
	cm, err := env.Client.CoreV1().ConfigMaps("runner").Get(ctx, live.StatusConfigMapName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The loop's scale-down candidates reach the status: cluster-wide and for g.
	if got := strings.Count(cm.Data[live.StatusConfigMapKey], "candidates: 3"); got != 2 {
		t.Errorf("status has %d scaleDown sections with 3 candidates, want 2:\n%s", got, cm.Data[live.StatusConfigMapKey])
	}
	body := get(t, "http://"+ln.Addr().String()+"/metrics")
	for _, want := range []string{
		`cluster_autoscaler_errors_total{type="apiCallError"} 1`,
		`cluster_autoscaler_node_group_backoff_status{node_group="g",reason="OutOfCapacity"} 1`,
		`cluster_autoscaler_node_group_max_count{node_group="g"} 4`,
		`cluster_autoscaler_nodes_count{state="ready"} 2`,
		`cluster_autoscaler_cluster_safe_to_autoscale 1`,
		`cluster_autoscaler_function_duration_seconds_count{function="main"} 2`,
		`cluster_autoscaler_function_duration_quantile_seconds_count{function="main"} 2`,
		// The loop's parts, and the one wait for the ticker (10s).
		`cluster_autoscaler_function_duration_seconds_sum{function="scaleUp"} 4`,
		`cluster_autoscaler_function_duration_quantile_seconds_count{function="scaleUp"} 2`,
		`cluster_autoscaler_last_activity{activity="scaleUp"} 1.7e+09`,
		`cluster_autoscaler_function_duration_seconds_sum{function="loopWait"} 10`,
		`cluster_autoscaler_node_groups_count{node_group_type="autoprovisioned"} 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if got := get(t, "http://"+ln.Addr().String()+"/healthz"); got != "OK" {
		t.Errorf("/healthz = %q", got)
	}
	cancel()
	for range 2 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, 20*time.Second, true, func(context.Context) (bool, error) {
		return ok(), nil
	})
	if err != nil {
		t.Fatal("condition not reached")
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
