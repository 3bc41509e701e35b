package capienv

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/kscale/kscale/internal/testenv/machinesim"
)

// InfraFinalizer keeps a deleted SimMachine until the stand-in provider
// has released its (imaginary) instance.
const InfraFinalizer = "infrastructure.kscale.test/instance"

// uninitializedTaint is Cluster API's taint of a node whose labels the
// Machine controller has not synced yet.
var uninitializedTaint = corev1.Taint{Key: "node.cluster.x-k8s.io/uninitialized", Effect: corev1.TaintEffectNoSchedule}

// deploymentLabel names a Machine's (and its infrastructure machine's)
// MachineDeployment; Cluster API sets it.
const deploymentLabel = "cluster.x-k8s.io/deployment-name"

// InfraConfig configures the stand-in infrastructure provider.
type InfraConfig struct {
	// Management reaches the cluster with the SimMachines.
	Management dynamic.Interface
	// Workload reaches the cluster where the Nodes register.
	Workload kubernetes.Interface
	// Namespace holds the SimMachines.
	Namespace string
	// Timing is the boot time, loop interval and provider id prefix.
	machinesim.Timing
	// Shapes are the Nodes of each MachineDeployment, by
	// "<namespace>/<name>".
	Shapes map[string]machinesim.Shape
}

// Infra is the stand-in infrastructure provider: it provisions
// SimMachines (a provider id, then the Node after BootTime) and releases
// deleted ones. A Cluster API MachineSet creates a SimMachine for each
// Machine, named as the Machine.
type Infra struct {
	cfg InfraConfig
	// The Ledger's Fail takes a MachineDeployment ("<namespace>/<name>"):
	// its SimMachines that have not booted get a Ready condition False
	// with the failure's reason and message; its Deleted lists every
	// SimMachine (so every Machine) released.
	machinesim.Ledger
}

// NewInfra returns a stand-in provider; Run starts it.
func NewInfra(cfg InfraConfig) (*Infra, error) {
	if cfg.Management == nil || cfg.Workload == nil || cfg.Namespace == "" {
		return nil, errors.New("capienv: InfraConfig.Management, Workload and Namespace are required")
	}
	cfg.Timing = cfg.WithDefaults()
	return &Infra{cfg: cfg}, nil
}

// Run reconciles until ctx ends.
func (p *Infra) Run(ctx context.Context) { p.Loop(ctx, p.cfg.Interval, p.Reconcile) }

// Reconcile runs one pass over the SimMachines.
func (p *Infra) Reconcile(ctx context.Context) error {
	list, err := p.api().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing SimMachines: %w", err)
	}
	var errs []error
	for i := range list.Items {
		errs = append(errs, p.sync(ctx, &list.Items[i]))
	}
	return errors.Join(errs...)
}

func (p *Infra) api() dynamic.ResourceInterface {
	return p.cfg.Management.Resource(InfraMachines).Namespace(p.cfg.Namespace)
}

// sync releases a deleted SimMachine, fails one of a failing
// deployment, or provisions it once its boot time is up.
func (p *Infra) sync(ctx context.Context, m *unstructured.Unstructured) error {
	if m.GetDeletionTimestamp() != nil {
		return p.release(ctx, m)
	}
	if !slices.Contains(m.GetFinalizers(), InfraFinalizer) {
		m.SetFinalizers(append(m.GetFinalizers(), InfraFinalizer))
		_, err := p.api().Update(ctx, m, metav1.UpdateOptions{})
		return err
	}
	if provisioned, _, _ := unstructured.NestedBool(m.Object, "status", "initialization", "provisioned"); provisioned {
		return nil
	}
	key := m.GetNamespace() + "/" + m.GetLabels()[deploymentLabel]
	f, failing, booted := p.Booting(key, m.GetUID())
	if failing {
		return p.markFailed(ctx, m, f)
	}
	if booted < p.cfg.BootTime {
		return nil
	}
	return p.provision(ctx, m, key)
}

// markFailed writes a Ready condition False with the failure, once.
func (p *Infra) markFailed(ctx context.Context, m *unstructured.Unstructured, f machinesim.Failure) error {
	conds, _, _ := unstructured.NestedSlice(m.Object, "status", "conditions")
	if len(conds) > 0 {
		return nil
	}
	setReady(m, "False", f.Reason, f.Message)
	_, err := p.api().UpdateStatus(ctx, m, metav1.UpdateOptions{})
	return err
}

// provision gives the SimMachine a provider id, registers its Node and
// reports it provisioned and Ready.
func (p *Infra) provision(ctx context.Context, m *unstructured.Unstructured, key string) error {
	id := p.cfg.ProviderIDPrefix + m.GetNamespace() + "/" + m.GetName()
	if cur, _, _ := unstructured.NestedString(m.Object, "spec", "providerID"); cur != id {
		_ = unstructured.SetNestedField(m.Object, id, "spec", "providerID")
		updated, err := p.api().Update(ctx, m, metav1.UpdateOptions{})
		if err != nil {
			return fmt.Errorf("setting the provider id of SimMachine %s: %w", m.GetName(), err)
		}
		m = updated
	}
	shape := p.cfg.Shapes[key]
	// The kubelet registers with Cluster API's uninitialized taint, as
	// kubeadm's bootstrap makes it; the Machine controller lifts it once
	// it has synced the node's labels.
	shape.Taints = append(slices.Clone(shape.Taints), uninitializedTaint)
	if err := machinesim.RegisterNode(ctx, p.cfg.Workload, machinesim.NodeSpec{Name: m.GetName(), ProviderID: id, Shape: shape}); err != nil {
		return err
	}
	_ = unstructured.SetNestedField(m.Object, true, "status", "initialization", "provisioned")
	setReady(m, "True", "Provisioned", "")
	if _, err := p.api().UpdateStatus(ctx, m, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("reporting SimMachine %s provisioned: %w", m.GetName(), err)
	}
	return nil
}

// release removes the finalizer of a deleted SimMachine: its instance is
// gone. The Node is Cluster API's to delete.
func (p *Infra) release(ctx context.Context, m *unstructured.Unstructured) error {
	if !slices.Contains(m.GetFinalizers(), InfraFinalizer) {
		return nil
	}
	m.SetFinalizers(slices.DeleteFunc(m.GetFinalizers(), func(f string) bool { return f == InfraFinalizer }))
	if _, err := p.api().Update(ctx, m, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("releasing SimMachine %s: %w", m.GetName(), err)
	}
	p.Released(m.GetNamespace() + "/" + m.GetName())
	return nil
}

// setReady writes the v1beta2 Ready condition the Machine controller
// mirrors into the Machine's InfrastructureReady condition.
func setReady(m *unstructured.Unstructured, status, reason, message string) {
	cond := map[string]any{"type": "Ready", "status": status, "reason": reason,
		"lastTransitionTime": time.Now().UTC().Format(time.RFC3339), "observedGeneration": m.GetGeneration()}
	if message != "" {
		cond["message"] = message
	}
	_ = unstructured.SetNestedSlice(m.Object, []any{cond}, "status", "conditions")
}
