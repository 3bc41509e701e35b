package snapshot

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kscale/kscale/internal/scenario"
)

// PriorityConfigMapKey is the key of the priority expander ConfigMap that
// holds the priorities, as the live autoscaler reads it.
const PriorityConfigMapKey = "priorities"

// builder carries the state of one conversion.
type builder struct {
	opts          Options
	res           *Result
	configured    map[string]bool
	groupNames    map[string]bool
	nodeGroup     map[string]string // node name -> group
	workloadNames map[string]bool
	podWorkload   map[string]string // namespace/pod -> workload name
	skipped       map[string]int
	controllers   map[string]bool
	desired       map[string]int32
	// daemonSets are the DaemonSets (namespace/name) with kept pods.
	daemonSets map[string]bool
	// claims are the cluster's claims by namespace/name; keptPods the
	// pods written, simPod their names in the simulation by
	// namespace/name.
	claims   map[string]*corev1.PersistentVolumeClaim
	keptPods []*corev1.Pod
	simPod   map[string]simPod
}

// Convert turns the cluster's objects into a scenario that starts from the
// cluster's state. It never fails on odd objects: what the scenario cannot
// express is left out or approximated and listed in Result.Notes. The
// error is for invalid options only.
func Convert(c *Cluster, opts Options) (*Result, error) {
	opts.Default()
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("converting the snapshot: %w", err)
	}
	b := &builder{opts: opts, configured: map[string]bool{}, groupNames: map[string]bool{}, nodeGroup: map[string]string{},
		workloadNames: map[string]bool{}, podWorkload: map[string]string{}, skipped: map[string]int{}, controllers: c.Controllers, desired: c.Desired,
		daemonSets: map[string]bool{}, claims: map[string]*corev1.PersistentVolumeClaim{}, simPod: map[string]simPod{}}
	for i := range c.PersistentVolumeClaims {
		pvc := &c.PersistentVolumeClaims[i]
		b.claims[pvc.Namespace+"/"+pvc.Name] = pvc
	}
	b.res = &Result{Scenario: &scenario.Scenario{APIVersion: scenario.APIVersion, Kind: scenario.Kind, Name: opts.Name,
		Description: "The state of " + cmp.Or(c.Source, "a cluster") + " at " + opts.Now.UTC().Format(time.RFC3339) + ", written by kscale snapshot.",
		Duration:    scenario.Duration{Duration: opts.Duration}}}
	b.res.Header = []string{
		fmt.Sprintf("Written by kscale snapshot from %s at %s.", cmp.Or(c.Source, "a cluster"), opts.Now.UTC().Format(time.RFC3339)),
		"Node group sizes, boot times, cloud capacity and the autoscaler's flags are not visible in the cluster: defaults are used.",
		"A failing cloud call (a stock-out, a failing size increase) is not visible either: replay one with setCloudError and clearCloudError events.",
		"Running pods start on the nodes they run on now (each workload's on).",
		"Pods are named <workload>-<n> and labelled app=<workload>.",
	}
	for _, g := range opts.NodeGroups {
		b.configured[g.Name], b.groupNames[g.Name] = true, true
	}
	b.buildGroups(sortedNodes(c.Nodes))
	b.buildWorkloads(sortedPods(c.Pods))
	b.daemonSetsWithoutPods(c.DaemonSets)
	b.buildStorage(c, b.claims)
	b.dropUnlistedClaims()
	b.budgets(c)
	b.priorities(c.Priorities)
	sortWorkloads(b.res.Scenario.Workloads)
	b.res.Notes = append(b.res.Notes, describeSkipped(b.skipped)...)
	return b.res, nil
}

func sortedNodes(nodes []corev1.Node) []*corev1.Node {
	out := make([]*corev1.Node, len(nodes))
	for i := range nodes {
		out[i] = &nodes[i]
	}
	slices.SortFunc(out, func(a, b *corev1.Node) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

func sortedPods(pods []corev1.Pod) []*corev1.Pod {
	out := make([]*corev1.Pod, len(pods))
	for i := range pods {
		out[i] = &pods[i]
	}
	slices.SortFunc(out, func(a, b *corev1.Pod) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out
}

func (b *builder) workloadByName(name string) *scenario.Workload {
	for i := range b.res.Scenario.Workloads {
		if b.res.Scenario.Workloads[i].Name == name {
			return &b.res.Scenario.Workloads[i]
		}
	}
	return nil
}

// priorities copies the priority expander ConfigMap's priorities.
func (b *builder) priorities(cm *corev1.ConfigMap) {
	if cm == nil {
		return
	}
	data, ok := cm.Data[PriorityConfigMapKey]
	if !ok {
		b.res.notef("ConfigMap %s/%s has no %q key; priorities are left out", cm.Namespace, cm.Name, PriorityConfigMapKey)
		return
	}
	var prios map[int][]string
	if err := sigsyaml.UnmarshalStrict([]byte(data), &prios); err != nil {
		b.res.notef("ConfigMap %s/%s: priorities do not parse (%v); left out", cm.Namespace, cm.Name, err)
		return
	}
	for p, exprs := range prios {
		for _, e := range exprs {
			if _, err := regexp.Compile(e); err != nil {
				b.res.notef("ConfigMap %s/%s: priority %d: bad regular expression %q; priorities are left out", cm.Namespace, cm.Name, p, e)
				return
			}
		}
	}
	if len(prios) > 0 {
		b.res.Scenario.Priorities = prios
		b.res.Header = append(b.res.Header, "The priorities come from ConfigMap "+cm.Namespace+"/"+cm.Name+
			"; they take effect with autoscaler.expander: priority.")
	}
}
