package kwok

import (
	"context"
	"fmt"
	"hash/fnv"
	"net"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// syncPod moves one pod along its simulated life and returns when to look
// at it again (0 = only on its next change).
func (k *Kubelet) syncPod(ctx context.Context, name cache.ObjectName) (time.Duration, error) {
	pod, err := k.pods.Pods(name.Namespace).Get(name.Name)
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("reading pod %s from cache: %w", name, err)
	}
	node, err := k.nodes.Get(pod.Spec.NodeName)
	if err != nil || !k.isManaged(node) {
		return 0, nil
	}
	if pod.DeletionTimestamp != nil {
		return 0, k.confirmDeletion(ctx, pod)
	}
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return 0, nil
	}
	life, err := lifetimesOf(pod, k.cfg.DefaultStartTime)
	if err != nil {
		return 0, k.writeStatus(ctx, pod, failedStatus(pod, err))
	}
	now := k.cfg.Clock.Now()
	startAt := k.boundAt(pod, now).Add(life.start)
	if now.Before(startAt) {
		return startAt.Sub(now), nil
	}
	if life.run > 0 {
		endAt := startAt.Add(life.run)
		if !now.Before(endAt) {
			return 0, k.writeStatus(ctx, pod, succeededStatus(pod, startAt, endAt))
		}
		return endAt.Sub(now), k.ensureRunning(ctx, pod, node, startAt)
	}
	return 0, k.ensureRunning(ctx, pod, node, startAt)
}

// lifetimes are a pod's start delay and run time.
type lifetimes struct {
	start, run time.Duration
}

func lifetimesOf(pod *corev1.Pod, defaultStart time.Duration) (lifetimes, error) {
	life := lifetimes{start: defaultStart}
	for key, dst := range map[string]*time.Duration{AnnotationStartTime: &life.start, AnnotationRunTime: &life.run} {
		v, ok := pod.Annotations[key]
		if !ok {
			continue
		}
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return lifetimes{}, fmt.Errorf("annotation %s: %q is not a non-negative Go duration", key, v)
		}
		*dst = d
	}
	return life, nil
}

// boundAt is when the pod was bound: the later of when this kubelet first
// saw it bound and the PodScheduled condition's transition (creation when a
// binding set no condition). The API stores the transition in whole seconds,
// so without the first sighting a start delay could come out up to a second
// short; after a restart the stored transition is all there is.
func (k *Kubelet) boundAt(pod *corev1.Pod, now time.Time) time.Time {
	stored := pod.CreationTimestamp.Time
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionTrue && !c.LastTransitionTime.IsZero() {
			stored = c.LastTransitionTime.Time
		}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	seen, ok := k.firstSeen[pod.UID]
	if !ok {
		seen = now
		k.firstSeen[pod.UID] = seen
	}
	if seen.After(stored) {
		return seen
	}
	return stored
}

// forget drops what the kubelet remembers of a pod that is gone.
func (k *Kubelet) forget(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	if pod, ok := obj.(*corev1.Pod); ok {
		k.mu.Lock()
		delete(k.firstSeen, pod.UID)
		k.mu.Unlock()
	}
}

func (k *Kubelet) ensureRunning(ctx context.Context, pod *corev1.Pod, node *corev1.Node, startAt time.Time) error {
	if pod.Status.Phase == corev1.PodRunning {
		return nil
	}
	return k.writeStatus(ctx, pod, runningStatus(pod, node, startAt))
}

func (k *Kubelet) writeStatus(ctx context.Context, pod *corev1.Pod, status corev1.PodStatus) error {
	updated := pod.DeepCopy()
	updated.Status = status
	_, err := k.cfg.Client.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("writing status of pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return nil
}

// confirmDeletion finishes a graceful deletion, as a kubelet does once the
// containers stopped.
func (k *Kubelet) confirmDeletion(ctx context.Context, pod *corev1.Pod) error {
	zero := int64(0)
	err := k.cfg.Client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
		GracePeriodSeconds: &zero, Preconditions: metav1.NewUIDPreconditions(string(pod.UID)),
	})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("confirming deletion of pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return nil
}

func runningStatus(pod *corev1.Pod, node *corev1.Node, startAt time.Time) corev1.PodStatus {
	started := metav1.NewTime(startAt)
	st := *pod.Status.DeepCopy()
	st.Phase = corev1.PodRunning
	st.HostIP = nodeIP(node)
	st.HostIPs = []corev1.HostIP{{IP: st.HostIP}}
	if !pod.Spec.HostNetwork {
		st.PodIP = podIP(pod)
	} else {
		st.PodIP = st.HostIP
	}
	st.PodIPs = []corev1.PodIP{{IP: st.PodIP}}
	st.StartTime = &started
	for _, t := range []corev1.PodConditionType{corev1.PodReadyToStartContainers, corev1.PodInitialized,
		corev1.ContainersReady, corev1.PodReady, corev1.PodScheduled} {
		setCondition(&st, t, corev1.ConditionTrue, "", started)
	}
	st.InitContainerStatuses = nil
	for _, c := range pod.Spec.InitContainers {
		cs := corev1.ContainerStatus{Name: c.Name, Image: c.Image, ImageID: c.Image}
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			cs.Ready, cs.Started = true, ptrTo(true)
			cs.State.Running = &corev1.ContainerStateRunning{StartedAt: started}
		} else {
			cs.State.Terminated = &corev1.ContainerStateTerminated{Reason: "Completed", StartedAt: started, FinishedAt: started}
		}
		st.InitContainerStatuses = append(st.InitContainerStatuses, cs)
	}
	st.ContainerStatuses = nil
	for _, c := range pod.Spec.Containers {
		st.ContainerStatuses = append(st.ContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: c.Image, Ready: true, Started: ptrTo(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}},
		})
	}
	return st
}

func succeededStatus(pod *corev1.Pod, startAt, endAt time.Time) corev1.PodStatus {
	started, finished := metav1.NewTime(startAt), metav1.NewTime(endAt)
	st := *pod.Status.DeepCopy()
	st.Phase = corev1.PodSucceeded
	setCondition(&st, corev1.PodReady, corev1.ConditionFalse, "PodCompleted", finished)
	setCondition(&st, corev1.ContainersReady, corev1.ConditionFalse, "PodCompleted", finished)
	st.ContainerStatuses = nil
	for _, c := range pod.Spec.Containers {
		st.ContainerStatuses = append(st.ContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: c.Image, Started: ptrTo(false),
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				Reason: "Completed", StartedAt: started, FinishedAt: finished}},
		})
	}
	return st
}

func failedStatus(pod *corev1.Pod, cause error) corev1.PodStatus {
	st := *pod.Status.DeepCopy()
	st.Phase = corev1.PodFailed
	st.Reason = "InvalidKwokAnnotation"
	st.Message = cause.Error()
	return st
}

func setCondition(st *corev1.PodStatus, t corev1.PodConditionType, s corev1.ConditionStatus, reason string, at metav1.Time) {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			if st.Conditions[i].Status != s {
				st.Conditions[i].Status, st.Conditions[i].Reason, st.Conditions[i].LastTransitionTime = s, reason, at
			}
			return
		}
	}
	st.Conditions = append(st.Conditions, corev1.PodCondition{Type: t, Status: s, Reason: reason, LastTransitionTime: at})
}

// nodeIP returns the node's InternalIP, or an address derived from its name.
func nodeIP(node *corev1.Node) string {
	for _, a := range node.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			return a.Address
		}
	}
	return hashedIP(net.IPv4(10, 240, 0, 0), node.Name)
}

// podIP derives a stable pod address in 10.244.0.0/16 from the pod's UID.
func podIP(pod *corev1.Pod) string {
	return hashedIP(net.IPv4(10, 244, 0, 0), string(pod.UID))
}

func hashedIP(base net.IP, key string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(key))
	v := h.Sum32()
	ip := base.To4()
	return net.IPv4(ip[0], ip[1], byte(v>>8), byte(v)|1).String()
}

func ptrTo[T any](v T) *T { return &v }
