package snapshot

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kscale/kscale/internal/scenario"
)

// budgets writes every PodDisruptionBudget as a podDisruptionBudgets
// entry with its own name, namespace, selector, budget and unhealthy pod
// eviction policy: the list keeps a budget over several workloads, over
// part of one or beside another one as exactly as one over one workload,
// and keeps its name, which scale-down's reasons show. Only a budget the
// scenario cannot hold is left out, with a note: one without a selector
// (it selects no pod) or with neither minAvailable nor maxUnavailable
// (it allows no disruption). A written budget that would select other
// pods in the simulation than in the cluster is noted.
func (b *builder) budgets(c *Cluster) {
	pdbs := slices.Clone(c.PDBs)
	slices.SortFunc(pdbs, func(x, y policyv1.PodDisruptionBudget) int {
		return cmp.Or(cmp.Compare(x.Namespace, y.Namespace), cmp.Compare(x.Name, y.Name))
	})
	covering := map[string][]string{} // pod -> the written budgets selecting it
	for i := range pdbs {
		pdb := &pdbs[i]
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		switch {
		case pdb.Spec.Selector == nil:
			b.res.notef("PodDisruptionBudget %s/%s is left out: it has no selector, so it selects no pod and changes no decision", pdb.Namespace, pdb.Name)
			continue
		case err != nil:
			b.res.notef("PodDisruptionBudget %s/%s is left out: its selector does not parse (%v)", pdb.Namespace, pdb.Name, err)
			continue
		case pdb.Spec.MinAvailable == nil && pdb.Spec.MaxUnavailable == nil:
			b.res.notef("PodDisruptionBudget %s/%s is left out: it sets neither minAvailable nor maxUnavailable, so it allows no disruption of its pods, "+
				"which the simulation may evict", pdb.Namespace, pdb.Name)
			continue
		}
		b.res.Scenario.PodDisruptionBudgets = append(b.res.Scenario.PodDisruptionBudgets, budgetOf(pdb))
		b.compareSelection(pdb, sel, covering)
	}
	b.noteOverlaps(covering)
}

// noteOverlaps notes the pods several budgets select: the eviction API
// evicts none of them, in the simulation too, but the disruption
// controller syncs only one of a pod's budgets when the pod changes, so a
// live budget's status may be older than its pods, where the simulation
// computes it from them.
func (b *builder) noteOverlaps(covering map[string][]string) {
	pods := map[string]int{}
	for _, budgets := range covering {
		if len(budgets) > 1 {
			pods[strings.Join(budgets, ", ")]++
		}
	}
	for _, set := range slices.Sorted(maps.Keys(pods)) {
		b.res.notef("%d pods are selected by several PodDisruptionBudgets (%s): the eviction API evicts none of them, as in the simulation; "+
			"the disruption controller updates only one of a pod's budgets when the pod changes, so the cluster's status of the others may be "+
			"out of date where the simulation computes it from the pods, and scale-down may find their nodes removable differently", pods[set], set)
	}
}

// budgetOf is the scenario entry of a budget that has a selector and one
// of minAvailable and maxUnavailable.
func budgetOf(pdb *policyv1.PodDisruptionBudget) scenario.PodDisruptionBudget {
	out := scenario.PodDisruptionBudget{Name: pdb.Name, Namespace: pdb.Namespace,
		Selector: &scenario.K8s[metav1.LabelSelector]{Value: *pdb.Spec.Selector.DeepCopy()}}
	switch {
	case pdb.Spec.MinAvailable != nil:
		out.MinAvailable = pdb.Spec.MinAvailable.String()
	default:
		out.MaxUnavailable = pdb.Spec.MaxUnavailable.String()
	}
	if p := pdb.Spec.UnhealthyPodEvictionPolicy; p != nil {
		out.UnhealthyPodEvictionPolicy = string(*p)
	}
	return out
}

// compareSelection notes a budget that selects other written pods (not
// terminating) in the simulation than in the cluster: a simulated pod has its workload's
// template labels (the first pod's) and app=<workload>.
// covering collects the budgets selecting each pod in the cluster.
func (b *builder) compareSelection(pdb *policyv1.PodDisruptionBudget, sel labels.Selector, covering map[string][]string) {
	live, sim, differ := 0, 0, 0
	for _, p := range b.keptPods {
		// A terminating pod is written as a workload of its own, named
		// after it; no budget counts it healthy, and its controller's
		// replicas are counted through the others.
		if p.Namespace != pdb.Namespace || p.DeletionTimestamp != nil {
			continue
		}
		inLive, inSim := sel.Matches(labels.Set(p.Labels)), sel.Matches(labels.Set(b.simLabels(p)))
		if inLive {
			k := p.Namespace + "/" + p.Name
			covering[k] = append(covering[k], pdb.Namespace+"/"+pdb.Name)
		}
		live, sim = live+btoi(inLive), sim+btoi(inSim)
		if inLive != inSim {
			differ++
		}
	}
	if differ > 0 {
		b.res.notef("PodDisruptionBudget %s/%s selects %d of the written pods in the cluster and %d in the simulation (%d differ): "+
			"a simulated pod carries its workload's template labels and app=<workload>, so the budget's disruptions, and the nodes "+
			"scale-down may drain, may differ", pdb.Namespace, pdb.Name, live, sim, differ)
	}
}

func btoi(v bool) int {
	if v {
		return 1
	}
	return 0
}
