package snapshot

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
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
	b.attachPDBs(c)
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

// attachPDBs gives a workload the PodDisruptionBudget that selects exactly
// its pods; the scenario has no other kind of PDB.
func (b *builder) attachPDBs(c *Cluster) {
	pdbs := slices.Clone(c.PDBs)
	slices.SortFunc(pdbs, func(x, y policyv1.PodDisruptionBudget) int {
		return cmp.Or(cmp.Compare(x.Namespace, y.Namespace), cmp.Compare(x.Name, y.Name))
	})
	for i := range pdbs {
		if why := b.attachPDB(c, &pdbs[i]); why != "" {
			b.res.notef("PodDisruptionBudget %s/%s is left out: %s", pdbs[i].Namespace, pdbs[i].Name, why)
		}
	}
}

// attachPDB attaches one PDB or says why it cannot.
func (b *builder) attachPDB(c *Cluster, pdb *policyv1.PodDisruptionBudget) string {
	if pdb.Spec.Selector == nil {
		return "it has no selector"
	}
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil {
		return fmt.Sprintf("bad selector: %v", err)
	}
	matched := map[string]int{}
	for i := range c.Pods {
		p := &c.Pods[i]
		w, kept := b.podWorkload[p.Namespace+"/"+p.Name]
		// Terminating pods are no budget's concern: the disruption
		// controller does not count them healthy and scale-down ignores
		// them.
		if kept && p.DeletionTimestamp == nil && p.Namespace == pdb.Namespace && sel.Matches(labels.Set(p.Labels)) {
			matched[w]++
		}
	}
	if len(matched) == 0 {
		return "it selects no pod"
	}
	if len(matched) > 1 {
		return fmt.Sprintf("it selects the pods of several workloads (%v); a scenario PDB covers one workload", sortedKeys(matched))
	}
	name := sortedKeys(matched)[0]
	w := b.workloadByName(name)
	if total := b.podCount(c, name); matched[name] != total {
		return fmt.Sprintf("it selects %d of the %d pods of workload %s; a scenario PDB covers all of them", matched[name], total, name)
	}
	if w.PDB != nil {
		return fmt.Sprintf("workload %s already has a PDB; a scenario workload has one", name)
	}
	switch {
	case pdb.Spec.MinAvailable != nil:
		w.PDB = &scenario.PDB{MinAvailable: pdb.Spec.MinAvailable.String()}
	case pdb.Spec.MaxUnavailable != nil:
		w.PDB = &scenario.PDB{MaxUnavailable: pdb.Spec.MaxUnavailable.String()}
	default:
		return "it sets neither minAvailable nor maxUnavailable"
	}
	if pdb.Spec.UnhealthyPodEvictionPolicy != nil {
		b.res.notef("PodDisruptionBudget %s/%s: its unhealthyPodEvictionPolicy is not captured", pdb.Namespace, pdb.Name)
	}
	return ""
}

func (b *builder) workloadByName(name string) *scenario.Workload {
	for i := range b.res.Scenario.Workloads {
		if b.res.Scenario.Workloads[i].Name == name {
			return &b.res.Scenario.Workloads[i]
		}
	}
	return nil
}

// podCount counts the workload's pods that are not terminating.
func (b *builder) podCount(c *Cluster, workload string) int {
	n := 0
	for i := range c.Pods {
		p := &c.Pods[i]
		if p.DeletionTimestamp == nil && b.podWorkload[p.Namespace+"/"+p.Name] == workload {
			n++
		}
	}
	return n
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
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
