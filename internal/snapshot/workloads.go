package snapshot

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/kscale/kscale/internal/nodeautoscaler/scaledown"
	"github.com/kscale/kscale/internal/scenario"
)

// Scenario workload kinds.
const (
	kindReplicaSet = "ReplicaSet"
	kindJob        = "Job"
	kindDaemonSet  = "DaemonSet"
	kindPods       = "Pods"
)

// podGroup is the pods of one controller (or one bare pod).
type podGroup struct {
	kind      string
	namespace string
	owner     string // "Deployment web", for notes
	names     []string
	pods      []*corev1.Pod
	// terminating: one pod with a deletion timestamp.
	terminating bool
}

// ownerOf sorts a pod into its group: key, scenario kind, description and
// the preferred workload names.
func ownerOf(p *corev1.Pod) (key string, g podGroup) {
	g = podGroup{namespace: p.Namespace}
	if app := p.Labels["app"]; app != "" {
		g.names = append(g.names, app)
	}
	if p.DeletionTimestamp != nil {
		g.kind, g.owner, g.terminating = kindPods, "terminating pod "+p.Namespace+"/"+p.Name, true
		g.names = append(g.names, p.Name)
		return p.Namespace + "/Terminating/" + p.Name, g
	}
	ref := metav1.GetControllerOf(p)
	if ref == nil || ref.Kind == "Node" {
		g.kind, g.owner = kindPods, "pod "+p.Namespace+"/"+p.Name
		g.names = append(g.names, p.Name)
		return p.Namespace + "/Pod/" + p.Name, g
	}
	key = p.Namespace + "/" + ref.Kind + "/" + ref.Name
	g.owner, g.kind = ref.Kind+" "+p.Namespace+"/"+ref.Name, ref.Kind
	name := ref.Name
	switch ref.Kind {
	case kindReplicaSet:
		if hash := p.Labels["pod-template-hash"]; hash != "" && strings.HasSuffix(name, "-"+hash) {
			name = strings.TrimSuffix(name, "-"+hash)
			g.owner = "Deployment " + p.Namespace + "/" + name + " (ReplicaSet " + ref.Name + ")"
		}
	case kindJob, kindDaemonSet:
	default:
		g.kind = kindReplicaSet
	}
	g.names = append(g.names, name)
	return key, g
}

// groupPods sorts the pods to keep into groups, in a stable order.
func groupPods(pods []*corev1.Pod) []*podGroup {
	byKey := map[string]*podGroup{}
	var keys []string
	for _, p := range pods {
		k, g := ownerOf(p)
		if _, ok := byKey[k]; !ok {
			byKey[k] = &g
			keys = append(keys, k)
		}
		byKey[k].pods = append(byKey[k].pods, p)
	}
	slices.Sort(keys)
	out := make([]*podGroup, 0, len(keys))
	for _, k := range keys {
		out = append(out, byKey[k])
	}
	return out
}

// keepPod reports whether a pod belongs in the snapshot, noting why not.
func (b *builder) keepPod(p *corev1.Pod) bool {
	switch {
	case p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed:
		b.skipped["finished (Succeeded or Failed) pods"]++
	case p.DeletionTimestamp != nil && p.Spec.NodeName == "":
		b.skipped["terminating pods not bound to a node (the autoscaler ignores them)"]++
	case len(p.Spec.SchedulingGates) > 0:
		b.skipped["pods with scheduling gates (the autoscaler ignores them)"]++
	case p.Spec.NodeName != "" && b.nodeGroup[p.Spec.NodeName] == "":
		b.skipped["pods bound to a node that does not exist"]++
	default:
		return true
	}
	return false
}

// buildWorkloads writes one workload per pod group.
func (b *builder) buildWorkloads(pods []*corev1.Pod) {
	var kept []*corev1.Pod
	for _, p := range pods {
		if b.keepPod(p) {
			kept = append(kept, p)
		}
	}
	b.keptPods = kept
	groups := groupPods(kept)
	for _, g := range groups {
		w := b.workload(g)
		for _, p := range g.pods {
			b.podWorkload[p.Namespace+"/"+p.Name] = w.Name
		}
		b.nameSimPods(&w, g.pods)
		b.res.Scenario.Workloads = append(b.res.Scenario.Workloads, w)
	}
}

// workload converts one pod group; the first pod is the template.
func (b *builder) workload(g *podGroup) scenario.Workload {
	w := scenario.Workload{Name: b.uniqueWorkloadName(g.names), Namespace: g.namespace, Kind: g.kind}
	rep := g.pods[0]
	w.Pod = podTemplate(rep, g.kind == kindDaemonSet)
	if g.kind != kindDaemonSet {
		splitLabels(&w, g.pods)
	}
	scheduled, differ := 0, 0
	for _, p := range g.pods {
		if p.Spec.NodeName != "" {
			scheduled++
		}
		t := podTemplate(p, g.kind == kindDaemonSet)
		if g.kind != kindDaemonSet {
			t.Labels = w.Pod.Labels // podLabels keep each pod's own
		}
		if !equality.Semantic.DeepEqual(t, w.Pod) {
			differ++
		}
	}
	if differ > 0 {
		b.res.notef("%s: %d of its pods differ from pod %s in requests, labels, annotations or scheduling constraints; all pods of workload %s use the template of %s",
			g.owner, differ, rep.Name, w.Name, rep.Name)
	}
	switch g.kind {
	case kindDaemonSet:
		if ref := metav1.GetControllerOf(rep); ref != nil {
			b.daemonSets[rep.Namespace+"/"+ref.Name] = true
		}
		if pending := len(g.pods) - scheduled; pending > 0 {
			b.res.notef("%s: %d pending pods are left out; the simulation runs a DaemonSet pod on every node that fits it", g.owner, pending)
		}
	default:
		w.Replicas, w.Scheduled, w.On = len(g.pods), scheduled, placement(g.pods)
		if !g.terminating {
			w.NotReady, w.Desired = notReady(g.pods), b.desiredReplicas(rep, len(g.pods))
		}
	}
	if g.terminating {
		w.Terminating = &scenario.Duration{Duration: max(0, g.pods[0].DeletionTimestamp.Sub(b.opts.Now))}
	}
	if g.kind == kindJob {
		b.res.notef("%s: the remaining run time of its pods is unknown; they run until the simulation ends", g.owner)
	}
	b.controller(g, rep, &w)
	b.claimTemplates(&w, g, b.claims)
	if app := rep.Labels["app"]; app != "" && app != w.Name {
		b.res.notef("%s: the simulation labels its pods app=%s (its workload name) instead of app=%s; selectors on app may match differently",
			g.owner, w.Name, app)
	}
	b.lossyPodFields(g.owner, rep)
	return w
}

// placement counts the bound pods per node (nil when none is bound).
func placement(pods []*corev1.Pod) map[string]int {
	var on map[string]int
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			if on == nil {
				on = map[string]int{}
			}
			on[p.Spec.NodeName]++
		}
	}
	return on
}

// desiredReplicas is the desired replicas of the pods' controller when
// they differ from the pod count, else nil.
func (b *builder) desiredReplicas(rep *corev1.Pod, pods int) *int {
	ref := metav1.GetControllerOf(rep)
	if ref == nil {
		return nil
	}
	d, ok := b.desired[ControllerKey(rep.Namespace, ref.Kind, ref.Name, ref.UID)]
	if !ok || int(d) == pods {
		return nil
	}
	n := int(d)
	return &n
}

// notReady counts the bound pods whose Ready condition is not True.
func notReady(pods []*corev1.Pod) int {
	n := 0
	for _, p := range pods {
		if p.Spec.NodeName != "" && !podReady(p) {
			n++
		}
	}
	return n
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// controller keeps the pods' owner when it is not a ReplicaSet that
// exists: another controller kind (a StatefulSet, a ReplicationController,
// a custom controller) or a checked controller that was deleted.
func (b *builder) controller(g *podGroup, rep *corev1.Pod, w *scenario.Workload) {
	ref := metav1.GetControllerOf(rep)
	if ref == nil || ref.Kind == "Node" || g.terminating {
		return
	}
	missing := b.controllers != nil && scaledown.IsCheckedController(ref) &&
		!b.controllers[ControllerKey(rep.Namespace, ref.Kind, ref.Name, ref.UID)]
	switch {
	case g.kind == kindDaemonSet:
		if missing {
			b.res.notef("%s: its DaemonSet is gone; the simulation keeps running it", g.owner)
		}
		return
	case g.kind == kindJob && !missing, g.kind == kindReplicaSet && ref.Kind == kindReplicaSet && !missing:
		return
	}
	w.Kind = kindReplicaSet
	w.Controller = &scenario.Controller{APIVersion: ref.APIVersion, Kind: ref.Kind, Missing: missing}
}

// podTemplate is the scenario's view of a pod: effective requests (init
// containers, sidecars and overhead included), labels, annotations and
// scheduling constraints. A DaemonSet pod's pinning to its node is dropped.
func podTemplate(p *corev1.Pod, daemon bool) scenario.PodTemplate {
	t := scenario.PodTemplate{Labels: cloneOrNil(p.Labels), Annotations: cloneOrNil(p.Annotations),
		NodeSelector: cloneOrNil(p.Spec.NodeSelector)}
	if r := nonZero(resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})); len(r) > 0 {
		t.Requests = scenario.Resources(r)
	}
	if l := nonZero(resourcehelper.PodLimits(p, resourcehelper.PodResourcesOptions{})); len(l) > 0 {
		t.Limits = scenario.Resources(l)
	}
	if a := affinity(p, daemon); a != nil {
		t.Affinity = &scenario.K8s[corev1.Affinity]{Value: *a}
	}
	t.Tolerations.Value = slices.Clone(p.Spec.Tolerations)
	t.TopologySpreadConstraints.Value = slices.Clone(p.Spec.TopologySpreadConstraints)
	if p.Spec.Priority != nil {
		t.Priority = *p.Spec.Priority
	}
	t.Volumes = append(localVolumes(p), claimVolumes(p)...)
	return t
}

// localVolumes are the pod's emptyDir and hostPath volumes, which
// scale-down's --skip-nodes-with-local-storage rule reads.
func localVolumes(p *corev1.Pod) []scenario.Volume {
	var out []scenario.Volume
	for _, v := range p.Spec.Volumes {
		switch {
		case v.EmptyDir != nil:
			out = append(out, scenario.Volume{Name: v.Name, Type: scenario.VolumeEmptyDir})
		case v.HostPath != nil:
			out = append(out, scenario.Volume{Name: v.Name, Type: scenario.VolumeHostPath})
		}
	}
	return out
}

func cloneOrNil(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
}

// affinity returns the pod's affinity; for DaemonSet pods without the
// required node term on metadata.name that the DaemonSet controller adds.
func affinity(p *corev1.Pod, daemon bool) *corev1.Affinity {
	if p.Spec.Affinity == nil {
		return nil
	}
	a := p.Spec.Affinity.DeepCopy()
	if daemon && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		req := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		var terms []corev1.NodeSelectorTerm
		for _, term := range req.NodeSelectorTerms {
			term.MatchFields = slices.DeleteFunc(term.MatchFields, func(r corev1.NodeSelectorRequirement) bool {
				return r.Key == metav1.ObjectNameField
			})
			if len(term.MatchFields) > 0 || len(term.MatchExpressions) > 0 {
				terms = append(terms, term)
			}
		}
		req.NodeSelectorTerms = terms
		if len(terms) == 0 {
			a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = nil
		}
		if a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil && len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) == 0 {
			a.NodeAffinity = nil
		}
	}
	if equality.Semantic.DeepEqual(*a, corev1.Affinity{}) {
		return nil
	}
	return a
}

// lossyPodFields notes pod fields that matter for scheduling but that the
// scenario's pod template cannot carry.
func (b *builder) lossyPodFields(owner string, p *corev1.Pod) {
	var lost []string
	for _, c := range slices.Concat(p.Spec.InitContainers, p.Spec.Containers) {
		for _, port := range c.Ports {
			if port.HostPort != 0 {
				lost = append(lost, "host port "+strconv.Itoa(int(port.HostPort))+" (where the pod fits)")
			}
		}
	}
	if s := p.Spec.SchedulerName; s != "" && s != corev1.DefaultSchedulerName {
		lost = append(lost, "scheduler "+s)
	}
	if len(p.Spec.ResourceClaims) > 0 {
		lost = append(lost, "resource claims")
	}
	if len(lost) > 0 {
		b.res.notef("%s: the scenario cannot express its %s", owner, strings.Join(lost, ", "))
	}
}

// sortWorkloads puts DaemonSets first, then the others by decreasing pod
// size, so the simulation's first-fit start packs them as tightly as it can.
func sortWorkloads(ws []scenario.Workload) {
	slices.SortStableFunc(ws, func(a, b scenario.Workload) int {
		if (a.Kind == kindDaemonSet) != (b.Kind == kindDaemonSet) {
			if a.Kind == kindDaemonSet {
				return -1
			}
			return 1
		}
		ac, bc := a.Pod.Requests.List(), b.Pod.Requests.List()
		if c := bc.Cpu().Cmp(*ac.Cpu()); c != 0 {
			return c
		}
		if c := bc.Memory().Cmp(*ac.Memory()); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
}

func describeSkipped(skipped map[string]int) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(skipped)) {
		out = append(out, fmt.Sprintf("%d %s are left out", skipped[k], k))
	}
	return out
}
