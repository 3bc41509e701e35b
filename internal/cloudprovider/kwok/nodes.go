package kwok

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"

	kwokstages "github.com/kscale/kscale/deploy/kwok"
	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/inmemory"
	"github.com/kscale/kscale/internal/cloudprovider/nodetemplate"
)

// AnnotationReadyAt is set on the node of a booting machine: when the
// machine finishes booting (RFC 3339). The node is NotReady and carries the
// not-ready taint until then; a restarted provider resumes the boot from it.
const AnnotationReadyAt = "kwok.kscale.dev/ready-at"

// Sync mirrors the cloud once: every machine gets a Node as soon as it is
// launched (NotReady while it boots), a booted machine's node turns Ready,
// and every kwok node whose machine is deleting or gone is deleted. It
// returns all errors it met and carries on past each one. The machines are
// read and the targets persisted under the size changes' lock; the node
// writes, which take a request each, are made without it, so a size change
// never waits for a mirror (a machine a change deletes meanwhile loses its
// node at the next sync).
func (p *Provider) Sync(ctx context.Context) error {
	p.syncMu.Lock()
	defer p.syncMu.Unlock()
	p.mu.Lock()
	machines := p.Machines()
	persisted := p.persist(ctx)
	p.mu.Unlock()
	return errors.Join(p.mirror(ctx, machines), persisted)
}

// mirror makes the nodes match machines.
func (p *Provider) mirror(ctx context.Context, machines []inmemory.Machine) error {
	nodes, err := p.listNodes(ctx)
	if err != nil {
		return err
	}
	existing := map[string]*corev1.Node{}
	for _, n := range nodes {
		if _, _, ok := parseProviderID(n.Spec.ProviderID); ok {
			existing[n.Spec.ProviderID] = n
		}
	}
	live := map[string]bool{}
	var errs []error
	for _, m := range machines {
		live[m.ProviderID] = true
		if m.Deleting {
			continue // its node stays until the machine is gone (deleteTime)
		}
		switch n := existing[m.ProviderID]; {
		case n == nil:
			errs = append(errs, p.createNode(ctx, m))
		case m.Running && n.Annotations[AnnotationReadyAt] != "":
			errs = append(errs, p.markReady(ctx, n))
		}
	}
	for id, n := range existing {
		if !live[id] {
			errs = append(errs, p.deleteNode(ctx, n))
		}
	}
	return errors.Join(errs...)
}

// listNodes reads the nodes from the informer when one was configured; the
// returned objects must not be modified.
func (p *Provider) listNodes(ctx context.Context) ([]*corev1.Node, error) {
	if p.cfg.Nodes != nil {
		nodes, err := p.cfg.Nodes.List(labels.Everything())
		if err != nil {
			return nil, fmt.Errorf("listing nodes: %w", err)
		}
		return nodes, nil
	}
	list, err := p.cfg.NodeClient.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	out := make([]*corev1.Node, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out, nil
}

// createNode registers a machine's node in one request, its status
// included, as a kubelet registers its node: kube-apiserver keeps a node's
// status on create (unlike a pod's).
func (p *Provider) createNode(ctx context.Context, m inmemory.Machine) error {
	n, err := p.newNode(m)
	if err != nil {
		return err
	}
	created, err := p.cfg.NodeClient.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil // created by a call the informer has not seen yet
	}
	if err != nil {
		return fmt.Errorf("creating node %s: %w", m.ID, err)
	}
	klog.FromContext(ctx).V(1).Info("Created node", "node", klog.KObj(created), "nodeGroup", m.Group, "running", m.Running)
	return nil
}

// writeStatus writes status onto the latest version of the node: the node
// lifecycle controller and kwok touch a node at any time (taints, heartbeats).
func (p *Provider) writeStatus(ctx context.Context, n *corev1.Node, status corev1.NodeStatus) error {
	nodes := p.cfg.NodeClient.CoreV1().Nodes()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n = n.DeepCopy()
		n.Status = status
		_, err := nodes.UpdateStatus(ctx, n, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) {
			if latest, getErr := nodes.Get(ctx, n.Name, metav1.GetOptions{}); getErr == nil {
				n = latest
			}
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("writing status of node %s: %w", n.Name, err)
	}
	return nil
}

// markReady finishes a boot: the node reports Ready first, then the
// annotation and the provider's not-ready taint go. In the other order the
// node lifecycle controller could see an untainted NotReady node and taint
// it again.
func (p *Provider) markReady(ctx context.Context, n *corev1.Node) error {
	status := *n.Status.DeepCopy()
	status.Conditions = []corev1.NodeCondition{readyCondition(corev1.ConditionTrue, p.cfg.Clock.Now())}
	if err := p.writeStatus(ctx, n, status); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
	nodes := p.cfg.NodeClient.CoreV1().Nodes()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		latest, err := nodes.Get(ctx, n.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		delete(latest.Annotations, AnnotationReadyAt)
		latest.Spec.Taints = slices.DeleteFunc(latest.Spec.Taints, isBootTaint)
		_, err = nodes.Update(ctx, latest, metav1.UpdateOptions{})
		return err
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("marking node %s ready: %w", n.Name, err)
	}
	klog.FromContext(ctx).V(1).Info("Node ready", "node", klog.KObj(n))
	return nil
}

func (p *Provider) deleteNode(ctx context.Context, n *corev1.Node) error {
	uid := n.UID
	err := p.cfg.NodeClient.CoreV1().Nodes().Delete(ctx, n.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting node %s: %w", n.Name, err)
	}
	klog.FromContext(ctx).V(1).Info("Deleted node", "node", klog.KObj(n))
	return nil
}

// newNode builds the node a machine registers, annotated for kwok
// (kwokstages.NodeAnnotation; kwok takes on nodes only when it first sees
// them): Ready when it has booted, otherwise NotReady with the boot's end in
// AnnotationReadyAt, which kscale's Stages leave NotReady until the provider
// ends the boot.
func (p *Provider) newNode(m inmemory.Machine) (*corev1.Node, error) {
	cfg, _, err := p.Group(m.Group)
	if err != nil {
		return nil, err
	}
	g := cloudprovider.NodeGroup{ID: m.Group, MinSize: cfg.MinSize, MaxSize: cfg.MaxSize, Template: cfg.Template}
	now := p.cfg.Clock.Now()
	n, err := MachineNode(m, g, p.reserved[m.Group], now)
	if err != nil {
		return nil, err
	}
	p.realNodes[m.Group].Apply(n)
	n.Annotations = map[string]string{kwokstages.NodeAnnotation: kwokstages.NodeAnnotationValue}
	if m.Running {
		return n, nil
	}
	n.Annotations[AnnotationReadyAt] = m.ReadyAt.UTC().Format(time.RFC3339Nano)
	n.Spec.Taints = append(n.Spec.Taints, bootTaint)
	n.Status.Conditions = []corev1.NodeCondition{readyCondition(corev1.ConditionFalse, now)}
	return n, nil
}

// bootTaint keeps pods off a booting node, as the node lifecycle
// controller's taint does for a NotReady node.
var bootTaint = corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}

func isBootTaint(t corev1.Taint) bool { return t.Key == bootTaint.Key && t.Effect == bootTaint.Effect }

func readyCondition(status corev1.ConditionStatus, now time.Time) corev1.NodeCondition {
	t := metav1.NewTime(now)
	c := corev1.NodeCondition{Type: corev1.NodeReady, Status: status, LastHeartbeatTime: t, LastTransitionTime: t,
		Reason: "KubeletReady", Message: "the machine registered its node"}
	if status != corev1.ConditionTrue {
		c.Reason, c.Message = "KubeletNotReady", "the machine is booting"
	}
	return c
}

// MachineNode builds the Ready node a machine of group g registers at now:
// the group's template labels and taints, the launched instance type's
// capacity, and reserved subtracted for allocatable. It is pure; the
// offline world of `kscale simulate` builds its nodes with it too.
func MachineNode(m inmemory.Machine, g cloudprovider.NodeGroup, reserved corev1.ResourceList, now time.Time) (*corev1.Node, error) {
	tmpl, err := nodetemplate.FromProvider(g, nodetemplate.NewEstimator(), nil)
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
	labels[nodetemplate.LabelHostname] = m.ID
	labels[nodetemplate.LabelInstanceType], labels[nodetemplate.LabelInstanceTypeBeta] = m.InstanceType.Name, m.InstanceType.Name
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: m.ID, Labels: labels, CreationTimestamp: metav1.NewTime(now)},
		Spec:       corev1.NodeSpec{ProviderID: m.ProviderID, Taints: slices.Clone(tmpl.Spec.Taints)},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: alloc,
			Conditions: []corev1.NodeCondition{readyCondition(corev1.ConditionTrue, now)}},
	}, nil
}
