package kwok

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/nodeautoscaler/template"
)

// Sync mirrors the cloud once: every running machine gets a Ready Node
// built from its group's template, and every kwok node whose machine is
// deleting or gone is deleted. It returns all errors it met and carries on
// past each one.
func (p *Provider) Sync(ctx context.Context) error {
	list, err := p.cfg.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing nodes: %w", err)
	}
	existing := map[string]bool{}
	for i := range list.Items {
		if _, _, ok := parseProviderID(list.Items[i].Spec.ProviderID); ok {
			existing[list.Items[i].Spec.ProviderID] = true
		}
	}
	live := map[string]bool{}
	var errs []error
	for _, m := range p.Machines() {
		if m.Deleting {
			continue
		}
		live[m.ProviderID] = true
		if m.Running && !existing[m.ProviderID] {
			errs = append(errs, p.createNode(ctx, m))
		}
	}
	for i := range list.Items {
		n := &list.Items[i]
		if existing[n.Spec.ProviderID] && !live[n.Spec.ProviderID] {
			errs = append(errs, p.deleteNode(ctx, n))
		}
	}
	return errors.Join(errs...)
}

func (p *Provider) createNode(ctx context.Context, m inmemory.Machine) error {
	n, err := p.newNode(m)
	if err != nil {
		return err
	}
	status := n.Status
	nodes := p.cfg.Client.CoreV1().Nodes()
	created, err := nodes.Create(ctx, n, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("creating node %s: %w", m.ID, err)
	}
	// Admission and controllers touch a new node at once (taints), so the
	// status is written onto the latest version.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		created.Status = status
		_, err := nodes.UpdateStatus(ctx, created, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) {
			if latest, getErr := nodes.Get(ctx, created.Name, metav1.GetOptions{}); getErr == nil {
				created = latest
			}
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("writing status of node %s: %w", m.ID, err)
	}
	klog.FromContext(ctx).V(1).Info("Created node", "node", klog.KObj(created), "nodeGroup", m.Group)
	return nil
}

func (p *Provider) deleteNode(ctx context.Context, n *corev1.Node) error {
	uid := n.UID
	err := p.cfg.Client.CoreV1().Nodes().Delete(ctx, n.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting node %s: %w", n.Name, err)
	}
	klog.FromContext(ctx).V(1).Info("Deleted node", "node", klog.KObj(n))
	return nil
}

// newNode builds the node a machine registers.
func (p *Provider) newNode(m inmemory.Machine) (*corev1.Node, error) {
	cfg, _, err := p.Group(m.Group)
	if err != nil {
		return nil, err
	}
	g := cloudprovider.NodeGroup{ID: m.Group, MinSize: cfg.MinSize, MaxSize: cfg.MaxSize, Template: cfg.Template}
	return MachineNode(m, g, p.reserved[m.Group], p.cfg.Clock.Now())
}

// MachineNode builds the Ready node a machine of group g registers at now:
// the group's template labels and taints, the launched instance type's
// capacity, and reserved subtracted for allocatable. It is pure; the
// offline world builds the same node (see the package documentation).
func MachineNode(m inmemory.Machine, g cloudprovider.NodeGroup, reserved corev1.ResourceList, now time.Time) (*corev1.Node, error) {
	tmpl, err := template.FromProvider(g, template.NewEstimator(), nil)
	if err != nil {
		return nil, err
	}
	capacity := m.InstanceType.Capacity.DeepCopy()
	alloc := capacity.DeepCopy()
	for r, q := range reserved {
		if a, ok := alloc[r]; ok {
			a.Sub(q)
			alloc[r] = a
		}
	}
	labels := maps.Clone(tmpl.Labels)
	labels[template.LabelHostname] = m.ID
	labels[template.LabelInstanceType], labels[template.LabelInstanceTypeBeta] = m.InstanceType.Name, m.InstanceType.Name
	t := metav1.NewTime(now)
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: m.ID, Labels: labels},
		Spec:       corev1.NodeSpec{ProviderID: m.ProviderID, Taints: tmpl.Spec.Taints},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: alloc, Conditions: []corev1.NodeCondition{{
			Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "kwok stand-in kubelet is posting ready status",
			LastHeartbeatTime: t, LastTransitionTime: t,
		}}},
	}, nil
}
