package machinesim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// Finalizer keeps a deleted machine until the simulator removed its node,
// so its deletion timestamp is observable as with a real controller.
const Finalizer = "machinesim.kscale.io/cloud"

// Config configures a Simulator.
type Config struct {
	// Management reaches the cluster with the machine API objects.
	Management dynamic.Interface
	// Workload reaches the cluster where the Nodes appear.
	Workload kubernetes.Interface
	// Flavor is the machine API.
	Flavor Flavor
	// Timing is the boot time, reconcile interval and provider id prefix.
	Timing
	// Shapes are the Nodes of each deployment, by "<namespace>/<name>".
	Shapes map[string]Shape
}

// Simulator plays a machine API's controllers and the cloud.
type Simulator struct {
	cfg Config
	Ledger
}

// New returns a simulator; Run starts it.
func New(cfg Config) (*Simulator, error) {
	if cfg.Management == nil || cfg.Workload == nil || cfg.Flavor == nil {
		return nil, errors.New("machinesim: Management, Workload and Flavor are required")
	}
	cfg.Timing = cfg.WithDefaults()
	return &Simulator{cfg: cfg}, nil
}

// Run reconciles until ctx ends.
func (s *Simulator) Run(ctx context.Context) error {
	s.Loop(ctx, s.cfg.Interval, s.Reconcile)
	return nil
}

// Reconcile runs one pass: deployments to sets, sets to machines,
// machines to nodes.
func (s *Simulator) Reconcile(ctx context.Context) error {
	dGVR, sGVR, mGVR := s.cfg.Flavor.Resources()
	deps, err := s.cfg.Management.Resource(dGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing deployments: %w", err)
	}
	sets, err := s.cfg.Management.Resource(sGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing sets: %w", err)
	}
	var errs []error
	for i := range deps.Items {
		errs = append(errs, s.syncDeployment(ctx, &deps.Items[i], sets.Items))
	}
	machines, err := s.cfg.Management.Resource(mGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing machines: %w", err)
	}
	if m, ok := s.cfg.Flavor.(Marker); ok {
		for i := range deps.Items {
			errs = append(errs, s.mark(ctx, m, &deps.Items[i], sets.Items, machines.Items))
		}
	}
	for i := range sets.Items {
		errs = append(errs, s.syncSet(ctx, &sets.Items[i], machines.Items))
	}
	for i := range machines.Items {
		errs = append(errs, s.syncMachine(ctx, &machines.Items[i]))
	}
	return errors.Join(errs...)
}

// syncDeployment creates the deployment's set or mirrors its replicas.
func (s *Simulator) syncDeployment(ctx context.Context, d *unstructured.Unstructured, sets []unstructured.Unstructured) error {
	_, sGVR, _ := s.cfg.Flavor.Resources()
	replicas, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
	for i := range sets {
		set := &sets[i]
		if !ownedBy(set, d) {
			continue
		}
		cur, _, _ := unstructured.NestedInt64(set.Object, "spec", "replicas")
		if cur == replicas {
			return nil
		}
		if err := unstructured.SetNestedField(set.Object, replicas, "spec", "replicas"); err != nil {
			return err
		}
		_, err := s.cfg.Management.Resource(sGVR).Namespace(set.GetNamespace()).Update(ctx, set, metav1.UpdateOptions{})
		return err
	}
	set := s.cfg.Flavor.NewSet(d.DeepCopy())
	set.SetNamespace(d.GetNamespace())
	set.SetName(d.GetName() + "-" + rand.String(5))
	set.SetOwnerReferences([]metav1.OwnerReference{ownerRef(d)})
	if _, err := s.cfg.Management.Resource(sGVR).Namespace(d.GetNamespace()).Create(ctx, set, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating the set of %s: %w", d.GetName(), err)
	}
	return nil
}

// syncSet creates missing machines and deletes surplus ones, highest
// delete priority (then newest) first.
func (s *Simulator) syncSet(ctx context.Context, set *unstructured.Unstructured, machines []unstructured.Unstructured) error {
	_, _, mGVR := s.cfg.Flavor.Resources()
	replicas, _, _ := unstructured.NestedInt64(set.Object, "spec", "replicas")
	api := s.cfg.Management.Resource(mGVR).Namespace(set.GetNamespace())
	var alive []*unstructured.Unstructured
	for i := range machines {
		m := &machines[i]
		if !ownedBy(m, set) || m.GetDeletionTimestamp() != nil {
			continue
		}
		if r, ok := s.cfg.Flavor.(Replacer); ok && r.Terminal(m) {
			if err := api.Delete(ctx, m.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("deleting terminal machine %s: %w", m.GetName(), err)
			}
			continue
		}
		alive = append(alive, m)
	}
	for n := len(alive); n < int(replicas); n++ {
		m := s.cfg.Flavor.NewMachine(set.DeepCopy())
		m.SetNamespace(set.GetNamespace())
		m.SetName(set.GetName() + "-" + rand.String(5))
		m.SetOwnerReferences([]metav1.OwnerReference{ownerRef(set)})
		m.SetFinalizers([]string{Finalizer})
		if _, err := api.Create(ctx, m, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating a machine of %s: %w", set.GetName(), err)
		}
	}
	if len(alive) <= int(replicas) {
		return nil
	}
	slices.SortStableFunc(alive, func(a, b *unstructured.Unstructured) int {
		if o, ok := s.cfg.Flavor.(Orderer); ok {
			return o.DeleteOrder(a, b)
		}
		if pa, pb := s.cfg.Flavor.DeletePriority(a), s.cfg.Flavor.DeletePriority(b); pa != pb {
			return pb - pa
		}
		if c := b.GetCreationTimestamp().Compare(a.GetCreationTimestamp().Time); c != 0 {
			return c
		}
		return strings.Compare(b.GetName(), a.GetName())
	})
	for _, m := range alive[:len(alive)-int(replicas)] {
		if err := api.Delete(ctx, m.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting machine %s: %w", m.GetName(), err)
		}
	}
	return nil
}

// syncMachine finishes deletions, fails machines of failing deployments
// and boots the others after BootTime.
func (s *Simulator) syncMachine(ctx context.Context, m *unstructured.Unstructured) error {
	if m.GetDeletionTimestamp() != nil {
		return s.finishDeletion(ctx, m)
	}
	if r, ok := s.cfg.Flavor.(Replacer); ok && s.cfg.Flavor.Failed(m) && r.Expire(m, time.Now()) {
		_, _, mGVR := s.cfg.Flavor.Resources()
		_, err := s.cfg.Management.Resource(mGVR).Namespace(m.GetNamespace()).UpdateStatus(ctx, m, metav1.UpdateOptions{})
		return err
	}
	if s.cfg.Flavor.ProviderID(m) != "" || s.cfg.Flavor.Failed(m) {
		return nil
	}
	key := m.GetNamespace() + "/" + s.cfg.Flavor.Deployment(m)
	f, failing, booted := s.Booting(key, m.GetUID())
	_, _, mGVR := s.cfg.Flavor.Resources()
	api := s.cfg.Management.Resource(mGVR).Namespace(m.GetNamespace())
	if failing {
		s.cfg.Flavor.MarkFailed(m, f)
		_, err := api.UpdateStatus(ctx, m, metav1.UpdateOptions{})
		return err
	}
	if booted < s.cfg.BootTime {
		return nil
	}
	return s.boot(ctx, m, key)
}

// boot gives the machine a provider id, registers its Node and writes the
// node reference.
func (s *Simulator) boot(ctx context.Context, m *unstructured.Unstructured, key string) error {
	_, _, mGVR := s.cfg.Flavor.Resources()
	api := s.cfg.Management.Resource(mGVR).Namespace(m.GetNamespace())
	id := s.cfg.ProviderIDPrefix + m.GetNamespace() + "/" + m.GetName()
	s.cfg.Flavor.SetProviderID(m, id)
	updated, err := api.Update(ctx, m, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("setting the provider id of %s: %w", m.GetName(), err)
	}
	if err := s.createNode(ctx, updated, id, s.cfg.Shapes[key]); err != nil {
		return err
	}
	s.cfg.Flavor.MarkRunning(updated, m.GetName())
	if _, err := api.UpdateStatus(ctx, updated, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("writing the node reference of %s: %w", m.GetName(), err)
	}
	return nil
}

// createNode registers the machine's Node with the flavor's labels and
// annotations and the deployment's shape.
func (s *Simulator) createNode(ctx context.Context, m *unstructured.Unstructured, providerID string, shape Shape) error {
	labels, annotations := s.cfg.Flavor.NodeMeta(m)
	return RegisterNode(ctx, s.cfg.Workload, NodeSpec{Name: m.GetName(), ProviderID: providerID,
		Labels: labels, Annotations: annotations, Shape: shape})
}

// finishDeletion removes the machine's node, then its finalizer.
func (s *Simulator) finishDeletion(ctx context.Context, m *unstructured.Unstructured) error {
	if !slices.Contains(m.GetFinalizers(), Finalizer) {
		return nil
	}
	err := s.cfg.Workload.CoreV1().Nodes().Delete(ctx, m.GetName(), metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting node %s: %w", m.GetName(), err)
	}
	m.SetFinalizers(slices.DeleteFunc(m.GetFinalizers(), func(f string) bool { return f == Finalizer }))
	_, _, mGVR := s.cfg.Flavor.Resources()
	if _, err := s.cfg.Management.Resource(mGVR).Namespace(m.GetNamespace()).Update(ctx, m, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("removing the finalizer of %s: %w", m.GetName(), err)
	}
	s.Released(m.GetNamespace() + "/" + m.GetName())
	return nil
}

func ownedBy(obj, owner *unstructured.Unstructured) bool {
	for _, o := range obj.GetOwnerReferences() {
		if o.UID == owner.GetUID() {
			return true
		}
	}
	return false
}

func ownerRef(owner *unstructured.Unstructured) metav1.OwnerReference {
	ctrl := true
	return metav1.OwnerReference{APIVersion: owner.GetAPIVersion(), Kind: owner.GetKind(), Name: owner.GetName(), UID: owner.GetUID(), Controller: &ctrl}
}
