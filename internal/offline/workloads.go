package offline

import (
	"maps"
	"slices"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/nodeautoscaler/template"
	"github.com/kscale/kscale/internal/scenario"
	"github.com/kscale/kscale/internal/simulator"
)

// workload is one scenario workload and its controller state.
type workload struct {
	spec      scenario.Workload
	replicas  int
	seq       int
	completed int
	started   map[string]time.Time
}

func ownerKind(kind string) (apiVersion, k string) {
	switch kind {
	case "ReplicaSet", "Deployment":
		// A Deployment's pods belong to its ReplicaSet; the simulation
		// has no rollouts, so one ReplicaSet named like the workload.
		return "apps/v1", "ReplicaSet"
	case "Job":
		return "batch/v1", "Job"
	case "DaemonSet":
		return "apps/v1", "DaemonSet"
	}
	return "", ""
}

// podTemplate is the workload's pod template as the scenario writes it:
// what its controller's object holds, before the API server's defaulting.
func (wl *workload) podTemplate() corev1.PodTemplateSpec {
	s := wl.spec
	labels := maps.Clone(s.Pod.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels["app"] = s.Name
	t := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: maps.Clone(s.Pod.Annotations)},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{
				Requests: s.Pod.Requests.List(), Limits: s.Pod.Limits.List()}}},
			NodeSelector: maps.Clone(s.Pod.NodeSelector), Tolerations: s.Pod.Tolerations.Value,
			TopologySpreadConstraints: s.Pod.TopologySpreadConstraints.Value, SchedulerName: corev1.DefaultSchedulerName,
		},
	}
	if s.Pod.Affinity != nil {
		t.Spec.Affinity = s.Pod.Affinity.Value.DeepCopy()
	}
	if s.Pod.Priority != 0 {
		prio := s.Pod.Priority
		t.Spec.Priority = &prio
	}
	t.Spec.Volumes = podVolumes(s.Pod.Volumes)
	return t
}

// podVolumes builds the pod's local storage volumes: an empty emptyDir,
// or a hostPath under /var/lib/kscale named after the volume.
func podVolumes(vs []scenario.Volume) []corev1.Volume {
	var out []corev1.Volume
	for _, v := range vs {
		vol := corev1.Volume{Name: v.Name}
		switch v.Type {
		case scenario.VolumeEmptyDir:
			vol.EmptyDir = &corev1.EmptyDirVolumeSource{}
		case scenario.VolumeHostPath:
			vol.HostPath = &corev1.HostPathVolumeSource{Path: "/var/lib/kscale/" + v.Name}
		case scenario.VolumeClaim:
			vol.PersistentVolumeClaim = &corev1.PersistentVolumeClaimVolumeSource{ClaimName: v.Claim}
		case scenario.VolumeEphemeral:
			c := newClaim("", "", *v.Ephemeral)
			vol.Ephemeral = &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{Spec: c.Spec}}
		}
		out = append(out, vol)
	}
	return out
}

// uid is the UID of the workload's controller object.
func (wl *workload) uid() types.UID {
	return types.UID("uid-" + wl.spec.Namespace + "-" + wl.spec.Name)
}

// newPod builds the workload's next pod, created at now, with its own
// labels (podLabels) and the API server's defaulting applied: a container's limit without a request
// becomes its request too.
func (wl *workload) newPod(now time.Time) *corev1.Pod {
	wl.seq++
	s := wl.spec
	t := wl.podTemplate()
	name := s.Name + "-" + strconv.Itoa(wl.seq)
	if extra := s.PodLabels[wl.seq]; len(extra) > 0 {
		maps.Copy(t.Labels, extra)
		t.Labels["app"] = s.Name
	}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: s.Namespace, Labels: t.Labels, Annotations: t.Annotations,
			CreationTimestamp: metav1.NewTime(now), UID: types.UID(s.Namespace + "/" + name)},
		Spec:   t.Spec,
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
	for i := range p.Spec.Containers {
		template.RequestsFromLimits(&p.Spec.Containers[i])
	}
	for _, ct := range s.VolumeClaimTemplates {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: ct.Name, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: ct.Name + "-" + name}}})
	}
	apiVersion, kind := ownerKind(s.Kind)
	if c := s.Controller; c != nil {
		apiVersion, kind = c.APIVersion, c.Kind
	}
	if kind != "" {
		yes := true
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: s.Name,
			UID: wl.uid(), Controller: &yes}}
	}
	return p
}

// daemonSet is the DaemonSet object of a DaemonSet workload, which the
// autoscaler lists to put its pods on group templates.
func (wl *workload) daemonSet() *appsv1.DaemonSet {
	t := wl.podTemplate()
	return &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: wl.spec.Name, Namespace: wl.spec.Namespace, UID: wl.uid(), CreationTimestamp: metav1.NewTime(Start)},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": wl.spec.Name}},
			Template: t,
		},
	}
}

// reconcileWorkloads creates and deletes pods so every workload has its
// replicas; Job pods succeed after their run time.
func (w *World) reconcileWorkloads(now time.Time) {
	if w.cluster.gen == w.reconGen && !w.replicasChanged && !w.jobsRunning() {
		return // nothing any controller would react to
	}
	defer func() { w.reconGen, w.replicasChanged = w.cluster.gen, false }()
	for _, wl := range w.workloads {
		switch wl.spec.Kind {
		case "DaemonSet":
			w.reconcileDaemonSet(wl, now)
		case "Job":
			w.completeJobPods(wl, now)
			w.reconcileReplicas(wl, wl.replicas-wl.completed, now)
		case "Pods":
			w.reconcilePods(wl, now)
		default:
			w.reconcileReplicas(wl, wl.replicas, now)
		}
	}
}

func (w *World) reconcileReplicas(wl *workload, want int, now time.Time) {
	have := w.cluster.ownedKeys(wl.spec.Namespace, wl.spec.Name)
	for i := len(have); i < want; i++ {
		w.addNewPod(wl, wl.newPod(now))
	}
	if len(have) > want {
		w.cluster.removePods(slices.Clone(have[max(want, 0):]))
	}
}

// reconcilePods handles bare pods: nobody recreates a lost one, so the
// count follows what exists, except for pods the scenario adds or removes.
func (w *World) reconcilePods(wl *workload, now time.Time) {
	for k, owner := range w.bare {
		if _, ok := w.cluster.pods[k]; !ok && owner == wl.spec.Name {
			delete(w.bare, k) // lost with its node or evicted: gone for good
			wl.replicas--
		}
	}
	have := w.podsOf(wl)
	for i := len(have); i < wl.replicas; i++ {
		p := wl.newPod(now)
		w.bare[podKey(p)] = wl.spec.Name
		w.addNewPod(wl, p)
	}
	if len(have) > wl.replicas {
		var gone []string
		for _, p := range have[wl.replicas:] {
			gone = append(gone, podKey(p))
			delete(w.bare, podKey(p))
		}
		w.cluster.removePods(gone)
	}
}

func (w *World) podsOf(wl *workload) []*corev1.Pod {
	var out []*corev1.Pod
	for _, k := range w.cluster.podOrder {
		if w.bare[k] == wl.spec.Name {
			out = append(out, w.cluster.pods[k])
		}
	}
	return out
}

// completeJobPods removes Job pods that ran for the run time and counts
// them as completions.
func (w *World) completeJobPods(wl *workload, now time.Time) {
	if wl.spec.RunTime == nil {
		return
	}
	var done []string
	for _, p := range w.cluster.ownedBy(wl.spec.Namespace, wl.spec.Name) {
		start, ok := wl.started[podKey(p)]
		if ok && !now.Before(start.Add(wl.spec.RunTime.Duration)) {
			done = append(done, podKey(p))
			delete(wl.started, podKey(p))
		}
	}
	wl.completed += len(done)
	w.cluster.removePods(done)
}

// reconcileDaemonSet runs one pod on every node that passes the pod's
// filters.
func (w *World) reconcileDaemonSet(wl *workload, now time.Time) {
	has := map[string]bool{}
	for _, p := range w.cluster.ownedBy(wl.spec.Namespace, wl.spec.Name) {
		has[p.Spec.NodeName] = true
	}
	var byNode map[string][]*corev1.Pod
	for _, name := range w.cluster.nodeOrder {
		if has[name] {
			continue
		}
		if byNode == nil {
			byNode = w.cluster.podsByNode()
		}
		snap := simulator.NewSnapshot()
		node := w.cluster.nodes[name]
		if snap.AddNode(node) != nil {
			continue
		}
		for _, p := range byNode[name] {
			_ = snap.AddPod(p)
		}
		p := wl.newPod(now)
		p.Name = wl.spec.Name + "-" + name
		p.UID = types.UID(string(p.UID) + "-" + name)
		w.cluster.storage.ensureClaims(wl, p)
		w.cluster.storage.addTo(snap)
		if snap.CheckFit(p, name) != nil {
			wl.seq--
			continue
		}
		w.bindPod(p, name, now)
	}
}

// bindPod is the one way a pod gets bound, whoever binds it (the
// scheduler, the DaemonSet controller, the initial placement): it stores a
// copy of the pod bound to node and running since now, and starts a Job
// pod's run time. It returns the stored copy.
func (w *World) bindPod(p *corev1.Pod, node string, now time.Time) *corev1.Pod {
	w.recordWait(p, now)
	b := p.DeepCopy()
	b.Spec.NodeName = node
	b.Status.Phase = corev1.PodRunning
	b.Status.StartTime = &metav1.Time{Time: now}
	b.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(now)}}
	w.cluster.addPod(b)
	w.cluster.storage.bindOnNode(b, w.cluster.nodes[node])
	if wl := w.byName[ownerName(b)]; wl != nil && wl.started != nil {
		wl.started[podKey(b)] = now
	}
	return b
}

// addNewPod adds a pod a controller created, with the claims it mounts
// that do not exist yet, as the StatefulSet and ephemeral volume
// controllers create them.
func (w *World) addNewPod(wl *workload, p *corev1.Pod) {
	w.cluster.storage.ensureClaims(wl, p)
	w.cluster.addPod(p)
}

// jobsRunning reports whether a Job pod may complete with time alone.
func (w *World) jobsRunning() bool {
	for _, wl := range w.workloads {
		if wl.spec.RunTime != nil && len(wl.started) > 0 {
			return true
		}
	}
	return false
}
