package scenario

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/nodeautoscaler/options"
)

// checker collects validation problems with their lines.
type checker struct {
	t    tree
	errs []error
}

func (c *checker) failf(cond bool, path []any, format string, args ...any) {
	if cond {
		c.errs = append(c.errs, &ParseError{Line: c.t.line(path...), Msg: fmt.Sprintf(format, args...)})
	}
}

func p(parts ...any) []any { return parts }

func validate(s *Scenario, t tree) error {
	c := &checker{t: t}
	c.failf(s.APIVersion != APIVersion, p("apiVersion"), "apiVersion: want %q, got %q", APIVersion, s.APIVersion)
	c.failf(s.Kind != Kind, p("kind"), "kind: want %q, got %q", Kind, s.Kind)
	c.failf(s.Duration.Duration <= 0, p("duration"), "duration: must be positive (e.g. 30m)")
	c.failf(s.Duration.Duration > 31*24*60*60*1e9, p("duration"), "duration: at most 31 days")
	c.options(s)
	c.failf(s.Cloud.InstanceRefreshInterval.Duration < 0, p("cloud", "instanceRefreshInterval"), "cloud.instanceRefreshInterval: must not be negative")
	for prio, exprs := range s.Priorities {
		for _, e := range exprs {
			_, err := regexp.Compile(e)
			c.failf(err != nil, p("priorities", strconv.Itoa(prio)), "priorities: %d: bad regular expression %q", prio, e)
		}
	}
	c.failf(slices.Contains(s.Options.Expanders, options.ExpanderPriority) && len(s.Priorities) == 0, p("autoscaler"),
		"autoscaler: the priority expander needs a priorities section")
	c.failf(slices.Contains(s.Options.Expanders, options.ExpanderGRPC), p("autoscaler"),
		"autoscaler: the grpc expander asks a live server; kscale simulate does not call one (use another expander)")
	groups := map[string]bool{}
	for i := range s.NodeGroups {
		c.nodeGroup(&s.NodeGroups[i], p("nodeGroups", i), groups)
	}
	c.nodes(s, groups)
	claims := c.storage(s)
	workloads := c.workloads(s, claims)
	c.budgets(s)
	c.events(s, groups, workloads)
	c.expectations(s, workloads)
	if len(c.errs) == 0 {
		c.limits(s)
	}
	return errors.Join(c.errs...)
}

func (c *checker) options(s *Scenario) {
	o := options.Default()
	if err := o.Set(s.Autoscaler.Values); err != nil {
		var fe *options.FlagError
		line := c.t.line("autoscaler")
		if errors.As(err, &fe) && s.Autoscaler.Lines[fe.Flag] > 0 {
			line = s.Autoscaler.Lines[fe.Flag]
		}
		c.errs = append(c.errs, &ParseError{Line: line, Msg: "autoscaler: " + err.Error()})
		return
	}
	if err := o.Validate(); err != nil {
		var fe *options.FlagError
		line := c.t.line("autoscaler")
		if errors.As(err, &fe) && s.Autoscaler.Lines[fe.Flag] > 0 {
			line = s.Autoscaler.Lines[fe.Flag]
		}
		c.errs = append(c.errs, &ParseError{Line: line, Msg: "autoscaler: " + err.Error()})
	}
	s.Options = o
}

func (c *checker) nodeGroup(g *NodeGroup, at []any, groups map[string]bool) {
	c.failf(groups[g.Name], append(slices.Clone(at), "name"), "nodeGroups.name: %q defined twice", g.Name)
	groups[g.Name] = true
	for _, pr := range g.Problems() {
		c.failf(true, append(slices.Clone(at), pr.Path...), "nodeGroups %q: %s", g.Name, pr.Msg)
	}
}

// entryProblems reports the problems of an entry part written at at.
func (c *checker) entryProblems(ps []inmemory.EntryProblem, at []any) {
	for _, pr := range ps {
		c.failf(true, append(slices.Clone(at), pr.Path...), "%s", pr.Msg)
	}
}

func (c *checker) nodes(s *Scenario, groups map[string]bool) {
	names := map[string]bool{}
	perGroup := map[string]int{}
	for i, n := range s.Nodes {
		at := p("nodes", i)
		c.failf(!groups[n.Group], append(at, "group"), "nodes: unknown node group %q", n.Group)
		c.failf(n.Count < 0 || (n.Name != "" && n.Count > 1), append(at, "count"), "nodes: count must be >= 0, and 1 when a name is given")
		c.failf(n.Name != "" && names[n.Name], append(at, "name"), "nodes: %q defined twice", n.Name)
		names[n.Name] = true
		perGroup[n.Group] += max(n.Count, 1)
	}
	for i, g := range s.NodeGroups {
		c.failf(perGroup[g.Name] > g.Max, p("nodeGroups", i, "max"), "nodeGroups %q: %d initial nodes exceed max %d", g.Name, perGroup[g.Name], g.Max)
	}
}

var workloadKinds = []string{"ReplicaSet", "Deployment", "Job", "DaemonSet", "Pods"}

func (c *checker) workloads(s *Scenario, claims map[string]bool) map[string]string {
	kinds := map[string]string{}
	nodeNames := map[string]bool{}
	for _, n := range s.Nodes {
		if n.Name != "" {
			nodeNames[n.Name] = true
		}
	}
	for i := range s.Workloads {
		w := &s.Workloads[i]
		at := p("workloads", i)
		f := func(field string) []any { return append(slices.Clone(at), field) }
		c.failf(len(validation.IsDNS1123Label(w.Name)) > 0, f("name"), "workloads.name: %q is not a valid name", w.Name)
		_, dup := kinds[w.Name]
		c.failf(dup, f("name"), "workloads.name: %q defined twice", w.Name)
		kinds[w.Name] = w.Kind
		c.failf(!slices.Contains(workloadKinds, w.Kind), f("kind"), "workloads %q: kind must be one of %v, got %q", w.Name, workloadKinds, w.Kind)
		c.failf(w.Replicas < 0 || w.Scheduled < 0 || w.Scheduled > w.Replicas, f("scheduled"), "workloads %q: need 0 <= scheduled <= replicas", w.Name)
		c.failf(w.Kind == "DaemonSet" && w.Replicas != 0, f("replicas"), "workloads %q: a DaemonSet has no replicas", w.Name)
		c.failf(w.NotReady < 0 || w.NotReady > w.Scheduled, f("notReady"), "workloads %q: need 0 <= notReady <= scheduled", w.Name)
		c.failf(w.NotReady > 0 && w.Kind == "DaemonSet", f("notReady"), "workloads %q: notReady is not for DaemonSets", w.Name)
		c.failf(w.Desired != nil && (*w.Desired < 0 || w.Kind != "ReplicaSet"), f("desired"),
			"workloads %q: desired is a ReplicaSet's desired replicas: not negative, only for kind ReplicaSet", w.Name)
		c.failf(w.RunTime != nil && w.Kind != "Job", f("runTime"), "workloads %q: runTime is only for Jobs", w.Name)
		c.placement(w, f("on"), nodeNames)
		if ctl := w.Controller; ctl != nil {
			c.failf(w.Kind != "ReplicaSet", f("controller"), "workloads %q: controller is only for kind ReplicaSet", w.Name)
			c.failf(ctl.APIVersion == "" || ctl.Kind == "", f("controller"), "workloads %q: controller needs apiVersion and kind", w.Name)
		}
		c.failf(w.Terminating != nil && w.Terminating.Duration < 0, f("terminating"), "workloads %q: terminating must not be negative", w.Name)
		c.failf(w.Terminating != nil && (w.Kind != "Pods" || w.Scheduled != w.Replicas), f("terminating"),
			"workloads %q: terminating is only for bare pods (kind Pods) that are all scheduled", w.Name)
		c.volumes(w, f("pod"), claims)
		c.podLabels(w, f("podLabels"))
		if w.Namespace == "" {
			w.Namespace = "default"
		}
		if w.PDB != nil {
			c.budgetValues(w.PDB.MinAvailable, w.PDB.MaxUnavailable, f("pdb"), fmt.Sprintf("workloads[%d] %q: pdb", i, w.Name))
		}
	}
	return kinds
}

// podLabels checks a workload's per-pod labels: pod numbers from 1 to
// replicas, valid labels, app left to the workload.
func (c *checker) podLabels(w *Workload, at []any) {
	c.failf(len(w.PodLabels) > 0 && w.Kind == "DaemonSet", at, "workloads %q: podLabels: a DaemonSet's pods are named by node, not number", w.Name)
	for _, n := range slices.Sorted(maps.Keys(w.PodLabels)) {
		pod := append(slices.Clone(at), strconv.Itoa(n))
		c.failf(n < 1 || n > w.Replicas, pod, "workloads %q: podLabels: pod %d: want a pod number from 1 to replicas (%d)", w.Name, n, w.Replicas)
		for _, k := range slices.Sorted(maps.Keys(w.PodLabels[n])) {
			v := w.PodLabels[n][k]
			c.failf(len(validation.IsQualifiedName(k)) > 0 || len(validation.IsValidLabelValue(v)) > 0, pod,
				"workloads %q: podLabels: pod %d: %q=%q is not a valid label", w.Name, n, k, v)
			c.failf(k == "app", pod, "workloads %q: podLabels: pod %d: app is the workload's name", w.Name, n)
		}
	}
}

// placement checks a workload's on: named nodes, positive counts summing
// to scheduled.
func (c *checker) placement(w *Workload, at []any, nodes map[string]bool) {
	if len(w.On) == 0 {
		return
	}
	sum := 0
	for _, node := range slices.Sorted(maps.Keys(w.On)) {
		n := w.On[node]
		c.failf(!nodes[node], append(slices.Clone(at), node), "workloads %q: on: %q is not a named node of the scenario", w.Name, node)
		c.failf(n <= 0, append(slices.Clone(at), node), "workloads %q: on: %q: count must be positive, got %d", w.Name, node, n)
		sum += n
	}
	c.failf(sum != w.Scheduled, at, "workloads %q: on: the counts sum to %d, want scheduled (%d)", w.Name, sum, w.Scheduled)
	c.failf(w.Kind == "DaemonSet", at, "workloads %q: on: a DaemonSet runs one pod on every node that fits it", w.Name)
}

// volumes checks a workload's pod volumes: valid, unique names, a known
// type, a listed claim for a claim volume and a claim for an ephemeral
// one.
func (c *checker) volumes(w *Workload, pod []any, claims map[string]bool) {
	ns := cmp.Or(w.Namespace, "default")
	seen := map[string]bool{}
	for i, v := range w.Pod.Volumes {
		at := append(slices.Clone(pod), "volumes", i)
		c.failf(len(validation.IsDNS1123Label(v.Name)) > 0, append(slices.Clone(at), "name"),
			"workloads %q: pod.volumes.name: %q is not a valid name", w.Name, v.Name)
		c.failf(seen[v.Name], append(slices.Clone(at), "name"), "workloads %q: pod.volumes.name: %q defined twice", w.Name, v.Name)
		seen[v.Name] = true
		c.failf(!slices.Contains(VolumeTypes, v.Type), append(slices.Clone(at), "type"),
			"workloads %q: pod.volumes.type: must be one of %v, got %q", w.Name, VolumeTypes, v.Type)
		c.failf((v.Type == VolumeClaim) != (v.Claim != ""), append(slices.Clone(at), "claim"),
			"workloads %q: pod.volumes %q: claim: required for type %s, only for it", w.Name, v.Name, VolumeClaim)
		c.failf(v.Claim != "" && !claims[ns+"/"+v.Claim], append(slices.Clone(at), "claim"),
			"workloads %q: pod.volumes %q: claim: %q is not a listed claim of namespace %s", w.Name, v.Name, v.Claim, ns)
		c.failf((v.Type == VolumeEphemeral) != (v.Ephemeral != nil), append(slices.Clone(at), "ephemeral"),
			"workloads %q: pod.volumes %q: ephemeral: required for type %s, only for it", w.Name, v.Name, VolumeEphemeral)
	}
}
