package offline

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/nodeautoscaler"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/expander"
	"github.com/kscale/kscale/internal/scenario"
)

// Start is the simulated wall-clock time every scenario starts at.
var Start = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// World is one running simulation.
type World struct {
	scn        *scenario.Scenario
	clock      *clocktesting.FakeClock
	cloud      *inmemory.Cloud
	cluster    *cluster
	autoscaler *nodeautoscaler.Autoscaler
	workloads  []*workload
	byName     map[string]*workload
	// budgets are the PodDisruptionBudgets, shorthands first.
	budgets   []budget
	bare      map[string]string
	reserved  map[string]corev1.ResourceList
	realNodes map[string]*scenario.RealNodes
	notReady  map[string]bool
	// unreadyPods are the pods (namespace/name) that run but stay not
	// Ready: a workload's notReady.
	unreadyPods map[string]bool
	startTaints map[string][]corev1.Taint
	readyNodes  map[string]bool
	// readyGen is the cluster's node generation readyNodes is of.
	readyGen   int
	lastReason map[string]string
	restarts   int
	watches    watches
	sched      schedSnapshot
	backoffs   backoffStore
	pending    int
	schedGen   int
	reconGen   int
	cloudGen   uint64
	cloudNext  time.Time
	synced     bool
	// replicasChanged is set by events that change a workload's replicas.
	replicasChanged bool
	res             Result
	seen            map[string]bool
	// waited marks the pods whose wait is recorded.
	waited map[string]bool
}

// New builds the world of a parsed scenario at its start.
func New(scn *scenario.Scenario) (*World, error) {
	clk := clocktesting.NewFakeClock(Start)
	w := &World{scn: scn, clock: clk, cloud: inmemory.New(clk), cluster: newCluster(), byName: map[string]*workload{},
		bare: map[string]string{}, reserved: map[string]corev1.ResourceList{}, realNodes: map[string]*scenario.RealNodes{}, notReady: map[string]bool{}, unreadyPods: map[string]bool{}, startTaints: map[string][]corev1.Taint{},
		readyNodes: map[string]bool{}, readyGen: -1, lastReason: map[string]string{}, seen: map[string]bool{}}
	w.res.Name = scn.Name
	w.cloud.SetInstanceRefresh(scn.Cloud.InstanceRefreshInterval.Duration)
	for _, g := range scn.NodeGroups {
		if err := w.addGroup(g); err != nil {
			return nil, err
		}
	}
	if err := w.addInitialNodes(); err != nil {
		return nil, err
	}
	w.cluster.storage.load(scn)
	for _, s := range scn.Workloads {
		wl := &workload{spec: s, replicas: s.Replicas}
		if s.Kind == "Job" {
			wl.started = map[string]time.Time{}
		}
		w.workloads = append(w.workloads, wl)
		w.byName[s.Name] = wl
		if s.Kind == "DaemonSet" {
			w.cluster.daemonSets = append(w.cluster.daemonSets, wl.daemonSet())
		}
	}
	w.budgets = newBudgets(scn)
	w.watch(scn.Expect)
	if err := w.restart(); err != nil {
		return nil, err
	}
	w.replicasChanged = true
	return w, w.placeInitialPods()
}

// priorities feeds the priority expander from the scenario.
func (w *World) priorities() (expander.Priorities, error) {
	out := expander.Priorities{}
	for prio, exprs := range w.scn.Priorities {
		for _, e := range exprs {
			re, err := regexp.Compile(e)
			if err != nil {
				return nil, err
			}
			out[prio] = append(out[prio], re)
		}
	}
	return out, nil
}

// restart replaces the autoscaler with a fresh one: its in-memory state is
// gone, except the backoff, which it restores from the store its
// predecessor saved to, as the live command does.
func (w *World) restart() error {
	a, err := nodeautoscaler.New(nodeautoscaler.Config{
		Options: w.scn.Options, Provider: w.provider(), Cluster: worldCluster{w}, Recorder: recorder{w},
		Clock: w.clock, Rand: rand.New(rand.NewPCG(uint64(w.restarts)+1, 42+w.scn.Seed)), Registerer: prometheus.NewRegistry(),
		ScaleDown:  apiServer{w},
		Priorities: w.priorities,
		Backoff:    &w.backoffs,
	})
	if err != nil {
		return fmt.Errorf("starting the autoscaler: %w", err)
	}
	if err := w.backoffs.restore(a); err != nil {
		return fmt.Errorf("starting the autoscaler: %w", err)
	}
	w.autoscaler = a
	w.restarts++
	return nil
}

// Run simulates the whole duration, one scan interval per tick.
func (w *World) Run(ctx context.Context) (*Result, error) {
	// The simulated autoscaler logs one level quieter than a live one: its
	// decisions are the timeline, and its default-level lines (such as
	// each increase) would repeat them on stderr; -v=1 shows them.
	ctx = klog.NewContext(ctx, klog.FromContext(ctx).V(1))
	step := w.scn.Options.ScanInterval
	next := 0
	for at := time.Duration(0); at <= w.scn.Duration.Duration; at += step {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		w.clock.SetTime(Start.Add(at))
		for ; next < len(w.scn.Events) && w.scn.Events[next].At.Duration <= at; next++ {
			if err := w.apply(w.scn.Events[next]); err != nil {
				w.emit(Event{Type: "EventError", Message: err.Error()})
				w.res.Final.LoopErrors++
			}
		}
		if err := w.tick(ctx); err != nil {
			return nil, err
		}
	}
	w.finish()
	return &w.res, nil
}

// tick advances the world by one loop at the clock's time.
func (w *World) tick(ctx context.Context) error {
	now := w.clock.Now()
	w.syncMachines(now)
	w.expireTerminating(now)
	w.reconcileWorkloads(now)
	w.observeReadiness()
	if err := w.schedule(now); err != nil {
		return err
	}
	started := time.Now() // wall time of the loop, for the report only
	var err error
	cpu := threadCPU(func() { err = w.autoscaler.RunOnce(ctx, now) })
	if took := time.Since(started); took > w.res.MaxLoopWall {
		w.res.MaxLoopWall, w.res.Final.MaxLoopAt = took, now.Sub(Start).String()
	}
	w.res.MaxLoopCPU = max(w.res.MaxLoopCPU, cpu)
	w.res.Final.Loops++
	if err != nil {
		w.res.Final.LoopErrors++
		w.emit(Event{Type: "LoopError", Message: err.Error()})
	}
	w.sample()
	return nil
}

// observeReadiness records NodeReady when a node becomes ready by the
// autoscaler's rules (kubelet Ready and no startup taint).
func (w *World) observeReadiness() {
	// Readiness depends on the node objects only.
	if w.readyGen == w.cluster.nodeGen {
		return
	}
	w.readyGen = w.cluster.nodeGen
	rules := clusterstate.ReadinessRules{StartupTaints: w.scn.Options.AllStartupTaints()}
	became := map[string][]string{}
	var groups []string
	for _, n := range w.cluster.nodeList() {
		ready := rules.IsReady(n)
		if ready && !w.readyNodes[n.Name] {
			g := groupOf(n)
			if _, ok := became[g]; !ok {
				groups = append(groups, g)
			}
			became[g] = append(became[g], n.Name)
		}
		w.readyNodes[n.Name] = ready
	}
	for _, g := range groups {
		w.emit(Event{Type: "NodeReady", Group: g, Nodes: became[g]})
	}
}

func groupOf(n *corev1.Node) string {
	rest := n.Spec.ProviderID[min(len(n.Spec.ProviderID), len(inmemory.ProviderIDPrefix)):]
	for i := range rest {
		if rest[i] == '/' {
			return rest[:i]
		}
	}
	return ""
}

func (w *World) emit(e Event) {
	e.At = w.clock.Now().Sub(Start)
	w.res.Events = append(w.res.Events, e)
}

// recorder turns autoscaler events into timeline entries; repeated
// explanations for the same pods are recorded only when they change.
type recorder struct{ w *World }

// Record appends the event to the timeline.
func (r recorder) Record(_ context.Context, e nodeautoscaler.Event) {
	if e.Type == nodeautoscaler.EventNotTriggerScaleUp {
		key := e.Reason + "|" + e.Message
		if r.w.lastReason[e.Reason] == key {
			return
		}
		r.w.lastReason[e.Reason] = key
	}
	r.w.emit(Event{Type: string(e.Type), Group: e.Group, Delta: e.Delta, Nodes: e.Nodes, Pods: e.Pods, Reason: e.Reason, Message: e.Message})
}

func (w *World) groupInfo(id string, cfg inmemory.GroupConfig) cloudprovider.NodeGroup {
	return cloudprovider.NodeGroup{ID: id, MinSize: cfg.MinSize, MaxSize: cfg.MaxSize, Template: cfg.Template}
}
