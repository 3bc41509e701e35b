package snapshot

import (
	"maps"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/scenario"
)

// splitLabels writes the labels every pod of a workload has as its
// template's labels and each pod's others as its podLabels, by the
// number the simulation gives it (simPodOrder): pods of one controller
// whose labels differ (a StatefulSet's pod-name label, a pod relabelled
// by hand) keep them, and a budget over part of them selects the same
// pods. The app label is the workload's in the simulation.
func splitLabels(w *scenario.Workload, pods []*corev1.Pod) {
	common := maps.Clone(pods[0].Labels)
	for _, p := range pods[1:] {
		maps.DeleteFunc(common, func(k, v string) bool {
			other, ok := p.Labels[k]
			return !ok || other != v
		})
	}
	w.Pod.Labels = cloneOrNil(common)
	for i, p := range simPodOrder(pods) {
		extra := map[string]string{}
		for k, v := range p.Labels {
			if _, ok := common[k]; !ok && k != "app" {
				extra[k] = v
			}
		}
		if len(extra) == 0 {
			continue
		}
		if w.PodLabels == nil {
			w.PodLabels = map[int]map[string]string{}
		}
		w.PodLabels[i+1] = extra
	}
}

// simLabels are the labels a written pod has in the simulation: its
// workload's template labels, its own podLabels and app=<workload>.
func (b *builder) simLabels(p *corev1.Pod) map[string]string {
	sp := b.simPod[p.Namespace+"/"+p.Name]
	w := b.workloadByName(sp.workload)
	if w == nil {
		return p.Labels
	}
	out := maps.Clone(w.Pod.Labels)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, w.PodLabels[sp.n])
	out["app"] = sp.workload
	return out
}
