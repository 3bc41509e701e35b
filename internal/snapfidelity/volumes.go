package snapfidelity

// The harness's storage: it creates the generated claims and volumes, plays
// the provisioner of the generated classes and removes them between
// clusters.

import (
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
)

// annotationSelectedNode is set on a late-binding claim by kube-scheduler
// when it picked the node the claim's volume is to be provisioned for.
const annotationSelectedNode = "volume.kubernetes.io/selected-node"

// createStorage creates the claims (owned by the pods of podUIDs, by
// namespace/name, when they name a pod), then the volumes bound to them
// with the claims' UIDs.
func (h *Harness) createStorage(ctx context.Context, claims []*corev1.PersistentVolumeClaim, volumes []*corev1.PersistentVolume,
	podUIDs map[string]types.UID) error {
	uids := map[string]types.UID{}
	for _, pvc := range claims {
		for i := range pvc.OwnerReferences {
			pvc.OwnerReferences[i].UID = podUIDs[pvc.Namespace+"/"+pvc.OwnerReferences[i].Name]
		}
		got, err := h.Client.CoreV1().PersistentVolumeClaims(pvc.Namespace).Create(ctx, pvc, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating claim %s/%s: %w", pvc.Namespace, pvc.Name, err)
		}
		uids[pvc.Namespace+"/"+pvc.Name] = got.UID
	}
	for _, pv := range volumes {
		pv.Spec.ClaimRef.UID = uids[pv.Spec.ClaimRef.Namespace+"/"+pv.Spec.ClaimRef.Name]
		if _, err := h.Client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating volume %s: %w", pv.Name, err)
		}
	}
	return nil
}

// liftClaimGates removes the scheduling gate of the pods that waited for
// their ephemeral volumes' claims, which exist now.
func (h *Harness) liftClaimGates(ctx context.Context, pods []*corev1.Pod) error {
	for _, p := range pods {
		if len(p.Spec.SchedulingGates) == 0 {
			continue
		}
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			got, err := h.Client.CoreV1().Pods(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			got.Spec.SchedulingGates = nil
			_, err = h.Client.CoreV1().Pods(p.Namespace).Update(ctx, got, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			return fmt.Errorf("lifting the scheduling gate of pod %s/%s: %w", p.Namespace, p.Name, err)
		}
	}
	return nil
}

// lateClaims reports whether some claim is of a late-binding class and
// unbound: kube-scheduler then waits for its provisioner.
func lateClaims(o Objects) bool {
	for _, pvc := range slices.Concat(o.PVCs, o.EphemeralPVCs) {
		if c := *pvc.Spec.StorageClassName; pvc.Spec.VolumeName == "" && (c == ClassLate || c == ClassLateZ1) {
			return true
		}
	}
	return false
}

// hasClaims reports whether a workload of c has claims.
func hasClaims(c *Cluster) bool {
	for _, w := range c.Workloads {
		if w.Claims != "" {
			return true
		}
	}
	return false
}

// provision plays the generated classes' provisioner and the PV
// controller: a claim kube-scheduler selected a node for gets a volume in
// that node's zone (its host for a node without zone) and is bound to it,
// which lets kube-scheduler bind the pod.
func (h *Harness) provision(ctx context.Context) error {
	for _, ns := range Namespaces {
		claims, err := h.Client.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("listing claims: %w", err)
		}
		for i := range claims.Items {
			pvc := &claims.Items[i]
			node, selected := pvc.Annotations[annotationSelectedNode]
			if !selected || pvc.Spec.VolumeName != "" {
				continue
			}
			n, err := h.Client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("provisioning claim %s/%s: %w", ns, pvc.Name, err)
			}
			pv := BoundVolume(pvc, "pv-"+ns+"-"+pvc.Name, NodeAffinity(n.Labels[corev1.LabelTopologyZone], node))
			if _, err := h.Client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("provisioning claim %s/%s: %w", ns, pvc.Name, err)
			}
			if _, err := h.Client.CoreV1().PersistentVolumeClaims(ns).Update(ctx, pvc, metav1.UpdateOptions{}); err != nil && !apierrors.IsConflict(err) {
				return fmt.Errorf("binding claim %s/%s: %w", ns, pvc.Name, err)
			}
		}
	}
	return nil
}

// cleanStorage removes the claims and volumes: their protection
// finalizers go first, since no controller removes them.
func (h *Harness) cleanStorage(ctx context.Context) error {
	now := metav1.DeleteOptions{GracePeriodSeconds: new(int64)}
	unprotect := []byte(`{"metadata":{"finalizers":null}}`)
	var errs []error
	for _, ns := range Namespaces {
		claims, err := h.Client.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("listing claims: %w", err)
		}
		for _, pvc := range claims.Items {
			_, err := h.Client.CoreV1().PersistentVolumeClaims(ns).Patch(ctx, pvc.Name, types.MergePatchType, unprotect, metav1.PatchOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, err)
			}
		}
		errs = append(errs, h.Client.CoreV1().PersistentVolumeClaims(ns).DeleteCollection(ctx, now, metav1.ListOptions{}))
	}
	volumes, err := h.Client.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing volumes: %w", err)
	}
	for _, pv := range volumes.Items {
		if _, err := h.Client.CoreV1().PersistentVolumes().Patch(ctx, pv.Name, types.MergePatchType, unprotect, metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	errs = append(errs, h.Client.CoreV1().PersistentVolumes().DeleteCollection(ctx, now, metav1.ListOptions{}))
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("removing claims and volumes: %w", err)
	}
	return nil
}

// storageGone reports whether no claim or volume is left.
func (h *Harness) storageGone(ctx context.Context) (bool, error) {
	pvs, err := h.Client.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
	if err != nil || len(pvs.Items) > 0 {
		return false, err
	}
	claims, err := h.Client.CoreV1().PersistentVolumeClaims(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	return err == nil && len(claims.Items) == 0, err
}
