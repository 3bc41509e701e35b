package actuation

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"

	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
)

// ControllerConfig wires a Controller.
type ControllerConfig struct {
	// ScaleDown configures the planner.
	ScaleDown scaledown.Config
	// Actuation configures the actuator.
	Actuation Config
	// Cluster reaches Kubernetes.
	Cluster Cluster
	// Deleter deletes cloud instances.
	Deleter Deleter
	// Registerer receives the metrics; nil registers nothing.
	Registerer prometheus.Registerer
	// Clock measures the soft taint time budget
	// (--max-bulk-soft-taint-time) and, unless ScaleDown has its own, the
	// removal simulation's (--scale-down-simulation-timeout); nil is the
	// wall clock.
	Clock clock.PassiveClock
}

// Controller is scale-down's one entry point for the loop: each RunOnce
// advances running drains, plans, and starts the chosen deletions.
type Controller struct {
	planner      *scaledown.Planner
	act          *Actuator
	soft         *softTainter
	metrics      *Metrics
	cleaned      bool
	lastDeletion time.Time
	lastFailure  time.Time
	// groupDeletion and groupFailure are lastDeletion and lastFailure per
	// node group (for --scale-down-delay-type-local).
	groupDeletion map[string]time.Time
	groupFailure  map[string]time.Time
	candidates    map[string]int
}

// Status is what one RunOnce decided and what ended.
type Status struct {
	// Plan is this round's plan.
	Plan scaledown.Plan
	// Outcomes are the deletions that ended this round.
	Outcomes []Outcome
	// Draining lists the nodes still being drained.
	Draining []string
	// Started are the deletions that began this round (their nodes were
	// marked ToBeDeleted), before Outcomes of the same nodes.
	Started []Started
}

// NewController validates the config and builds the planner and actuator.
func NewController(cfg ControllerConfig) (*Controller, error) {
	if cfg.Cluster == nil || cfg.Deleter == nil {
		return nil, errors.New("configuring scale-down: cluster and deleter are required")
	}
	clk := cfg.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	sd := cfg.ScaleDown
	if sd.Clock == nil {
		sd.Clock = clk
	}
	planner, err := scaledown.NewPlanner(sd)
	if err != nil {
		return nil, err
	}
	m, err := NewMetrics(cfg.Registerer)
	if err != nil {
		return nil, err
	}
	act, err := New(cfg.Actuation, cfg.Cluster, cfg.Deleter, m)
	if err != nil {
		return nil, err
	}
	soft := &softTainter{count: cfg.Actuation.SoftTaintCount, budget: cfg.Actuation.SoftTaintTime, cluster: cfg.Cluster, clock: clk}
	return &Controller{planner: planner, act: act, soft: soft, metrics: m,
		groupDeletion: map[string]time.Time{}, groupFailure: map[string]time.Time{}}, nil
}

// RunOnce runs scale-down at in.Now. The loop fills in nodes, pods, PDBs,
// groups, placed pending pods and the last scale-up time; the controller
// fills in the deletions in flight and its own last deletion and failure.
// On the first call it removes deletion taints left by an earlier process.
// In rounds that start no deletion it keeps the soft
// DeletionCandidateOfClusterAutoscaler taint on the unneeded nodes and off
// the others (--max-bulk-soft-taint-count, --max-bulk-soft-taint-time).
func (c *Controller) RunOnce(ctx context.Context, in scaledown.Input) (Status, error) {
	if !c.cleaned {
		nodes := make([]*corev1.Node, len(in.Nodes))
		for i := range in.Nodes {
			nodes[i] = in.Nodes[i].Node
		}
		if err := c.act.CleanUp(ctx, nodes); err != nil {
			return Status{}, err
		}
		c.cleaned = true
	}
	st := Status{Outcomes: c.note(c.act.Step(ctx, in.Now))}
	c.fillInFlight(&in)
	plan, err := c.planner.Plan(in)
	if err != nil {
		return st, fmt.Errorf("planning scale-down: %w", err)
	}
	c.metrics.SetUnneeded(len(plan.Unneeded))
	c.candidates = make(map[string]int, len(in.Groups))
	for _, u := range plan.Unneeded {
		c.candidates[u.Group]++
	}
	st.Plan = plan
	st.Outcomes = append(st.Outcomes, c.note(c.act.Start(ctx, plan, in.Now))...)
	c.metrics.status.observe(plan, c.act.InFlight())
	st.Started = c.act.LastStarted()
	st.Draining = c.act.Draining()
	// As upstream, soft taints change only in rounds that start no
	// deletion.
	if len(st.Started) == 0 {
		c.soft.update(ctx, in.Nodes, plan.Unneeded, in.Now)
	}
	return st, nil
}

// ClearUnneeded forgets the planner's unneeded timers and candidates.
func (c *Controller) ClearUnneeded() {
	c.planner.ClearUnneeded()
	c.candidates = nil
	c.metrics.SetUnneeded(0)
}

// Candidates returns the number of unneeded nodes per group of the last
// plan (upstream's scale-down candidates); groups without any are absent.
// Each round replaces the map and never modifies an earlier one; callers
// must not modify it.
func (c *Controller) Candidates() map[string]int { return c.candidates }

// fillInFlight sets what only the controller knows on the input.
func (c *Controller) fillInFlight(in *scaledown.Input) {
	in.InFlight = c.act.InFlight()
	deleting := c.act.Deleting()
	in.Groups = slices.Clone(in.Groups)
	for i := range in.Groups {
		in.Groups[i].Deleting = deleting[in.Groups[i].ID]
	}
	in.LastDeletion, in.LastFailure = c.lastDeletion, c.lastFailure
	in.GroupLastDeletion, in.GroupLastFailure = c.groupDeletion, c.groupFailure
	// A node being deleted is blocked even when the caller's view does not
	// show its taint yet (a lagging cache).
	draining := c.act.inFlightNodes()
	in.Nodes = slices.Clone(in.Nodes)
	for i, n := range in.Nodes {
		if _, ok := slices.BinarySearch(draining, n.Node.Name); ok && !clusterstate.HasTaint(n.Node, toBeDeleted.Key) {
			cp := n.Node.DeepCopy()
			cp.Spec.Taints = append(cp.Spec.Taints, toBeDeleted)
			in.Nodes[i].Node = cp
		}
	}
}

// note remembers the last deletion and failure times.
func (c *Controller) note(outs []Outcome) []Outcome {
	for _, o := range outs {
		if o.Failed() {
			c.lastFailure = o.Ended
			c.groupFailure[o.Group] = o.Ended
		} else {
			c.lastDeletion = o.Ended
			c.groupDeletion[o.Group] = o.Ended
		}
	}
	return outs
}
