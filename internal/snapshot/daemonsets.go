package snapshot

import (
	"cmp"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/scenario"
)

// daemonSetsWithoutPods writes a DaemonSet workload, from its object's pod
// template, for each DaemonSet none of whose pods the snapshot keeps: the
// autoscaler puts its pods on the node templates of scale-up from the
// object, pods or not.
func (b *builder) daemonSetsWithoutPods(sets []appsv1.DaemonSet) {
	sorted := slices.Clone(sets)
	slices.SortFunc(sorted, func(x, y appsv1.DaemonSet) int {
		return cmp.Or(cmp.Compare(x.Namespace, y.Namespace), cmp.Compare(x.Name, y.Name))
	})
	for i := range sorted {
		ds := &sorted[i]
		if b.daemonSets[ds.Namespace+"/"+ds.Name] {
			continue
		}
		p := &corev1.Pod{ObjectMeta: *ds.Spec.Template.ObjectMeta.DeepCopy(), Spec: *ds.Spec.Template.Spec.DeepCopy()}
		p.Namespace = ds.Namespace
		names := []string{ds.Name}
		if app := p.Labels["app"]; app != "" {
			names = []string{app, ds.Name}
		}
		w := scenario.Workload{Name: b.uniqueWorkloadName(names), Namespace: ds.Namespace, Kind: kindDaemonSet, Pod: podTemplate(p, true)}
		owner := "DaemonSet " + ds.Namespace + "/" + ds.Name
		b.res.notef("%s has no pods; written from its pod template, the simulation runs its pod on every node that fits it", owner)
		b.lossyPodFields(owner, p)
		b.res.Scenario.Workloads = append(b.res.Scenario.Workloads, w)
	}
}
