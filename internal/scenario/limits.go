package scenario

import "fmt"

// Limits bound what one scenario may ask of the simulator, so one line
// cannot exhaust the machine (docs/scenarios.md, Limits).
const (
	// MaxPods bounds the pods of all workloads at any time (replicas,
	// scaleWorkload and addPods; DaemonSet pods count with the nodes).
	MaxPods = 200000
	// MaxWorkloads bounds the workloads.
	MaxWorkloads = 10000
	// MaxPodDisruptionBudgets bounds the podDisruptionBudgets list.
	MaxPodDisruptionBudgets = 10000
	// MaxNodes bounds the nodes the groups start with: their min sizes,
	// targets and initial nodes. Later growth is bounded by the pods.
	MaxNodes = 20000
	// MaxGroupSize bounds one node group's max size.
	MaxGroupSize = 100000
	// MaxLoops bounds the autoscaler loops: duration / scan-interval.
	MaxLoops = 300000
)

// limits checks the scenario against the limits, naming the line that
// goes over.
func (c *checker) limits(s *Scenario) {
	c.failf(len(s.Workloads) > MaxWorkloads, p("workloads", MaxWorkloads), "workloads: at most %d, got %d", MaxWorkloads, len(s.Workloads))
	c.failf(len(s.PodDisruptionBudgets) > MaxPodDisruptionBudgets, p("podDisruptionBudgets", MaxPodDisruptionBudgets),
		"podDisruptionBudgets: at most %d, got %d", MaxPodDisruptionBudgets, len(s.PodDisruptionBudgets))
	if step := s.Options.ScanInterval; step > 0 {
		loops := s.Duration.Duration / step
		at := p("duration")
		if s.Autoscaler.Lines["scan-interval"] > 0 {
			at = nil
		}
		if loops > MaxLoops {
			c.errs = append(c.errs, &ParseError{Line: c.lineOr(at, s.Autoscaler.Lines["scan-interval"]),
				Msg: fmt.Sprintf("duration %v / scan-interval %v is %d loops; at most %d (raise scan-interval or shorten duration)",
					s.Duration.Duration, step, int64(loops), MaxLoops)})
		}
	}
	initial := map[string]int{}
	for _, n := range s.Nodes {
		initial[n.Group] += max(n.Count, 1)
	}
	nodes := 0
	for i, g := range s.NodeGroups {
		c.failf(g.Max > MaxGroupSize, p("nodeGroups", i, "max"), "nodeGroups %q: max %d; at most %d", g.Name, g.Max, MaxGroupSize)
		nodes += max(g.InitialTarget(), initial[g.Name])
		if nodes > MaxNodes {
			c.failf(true, p("nodeGroups", i), "nodeGroups %q: the groups start with %d nodes (min, target, initial nodes); at most %d", g.Name, nodes, MaxNodes)
			return
		}
	}
	replicas := map[string]int{}
	total := 0
	for i, w := range s.Workloads {
		replicas[w.Name] = w.Replicas
		total += w.Replicas
		if total > MaxPods {
			c.failf(true, p("workloads", i, "replicas"), "workloads %q: replicas bring the pods to %d; at most %d", w.Name, total, MaxPods)
			return
		}
	}
	for i, e := range s.Events {
		action := "scaleWorkload"
		switch {
		case e.ScaleWorkload != nil:
			total += e.ScaleWorkload.Count - replicas[e.ScaleWorkload.Workload]
			replicas[e.ScaleWorkload.Workload] = e.ScaleWorkload.Count
		case e.AddPods != nil:
			action = "addPods"
			total += e.AddPods.Count
			replicas[e.AddPods.Workload] += e.AddPods.Count
		default:
			continue
		}
		if total > MaxPods {
			c.failf(true, p("events", i, action, "count"), "events: this event brings the pods to %d; at most %d", total, MaxPods)
			return
		}
	}
}

// lineOr is the line of path, or line when path is nil.
func (c *checker) lineOr(path []any, line int) int {
	if path == nil {
		return line
	}
	return c.t.line(path...)
}
