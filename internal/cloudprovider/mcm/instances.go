package mcm

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/machineapi"
)

// machine is one Machine with the fields the provider reads.
type machine struct {
	name        string
	labels      map[string]string
	annotations map[string]string
	providerID  string
	nodeName    string
	deleting    bool
	phase       string
	// op is status.lastOperation.
	opType, opState, opCode, opDescription string
}

func newMachine(obj *unstructured.Unstructured) *machine {
	m := &machine{name: obj.GetName(), labels: obj.GetLabels(), annotations: obj.GetAnnotations()}
	m.nodeName = m.labels[NodeLabel]
	m.providerID, _, _ = unstructured.NestedString(obj.Object, "spec", "providerID")
	m.phase, _, _ = unstructured.NestedString(obj.Object, "status", "currentStatus", "phase")
	op, _, _ := unstructured.NestedStringMap(obj.Object, "status", "lastOperation")
	m.opType, m.opState, m.opCode, m.opDescription = op["type"], op["state"], op["errorCode"], op["description"]
	m.deleting = obj.GetDeletionTimestamp() != nil || m.phase == phaseTerminating
	return m
}

// failed reports a Machine MCM gave up on (phase Failed): its MachineSet
// deletes and replaces it.
func (m *machine) failed() bool { return m.phase == phaseFailed }

// preserved reports the preserve annotation's reason, if it keeps the
// Machine now: any value other than "false", and "when-failed" only once
// the Machine failed.
func (m *machine) preserved() string {
	v, ok := m.annotations[PreserveAnnotation]
	switch {
	case !ok || v == "false":
		return ""
	case v == "when-failed" && !m.failed():
		return ""
	}
	return fmt.Sprintf("Machine %s is preserved (%s=%s)", m.name, PreserveAnnotation, v)
}

// creationError is the Machine's failed creation, if any:
// ResourceExhausted is out of resources, any other code another error.
func (m *machine) creationError() *cloudprovider.ErrorInfo {
	failedOp := m.opType == operationCreate && m.opState == stateFailed
	if !failedOp && m.phase != phaseFailed && m.phase != phaseCrashLoopBackOff {
		return nil
	}
	e := &cloudprovider.ErrorInfo{Class: cloudprovider.ErrorOther, Code: m.opCode, Message: m.opDescription}
	if e.Code == "" {
		e.Code = CodeCreationFailed
	}
	if e.Message == "" {
		e.Message = fmt.Sprintf("Machine %s failed to be created (phase %s)", m.name, m.phase)
	}
	if m.opCode == CodeResourceExhausted {
		e.Class = cloudprovider.ErrorOutOfResources
	}
	return e
}

// instance maps a Machine: deleting once MCM deletes it, running once
// its Node is found (with the Node's provider id), else creating with
// requested://<machine> and the creation error, if any.
func (m *machine) instance(ix *nodeIndex) cloudprovider.Instance {
	inst := cloudprovider.Instance{ID: m.name, ProviderID: RequestedPrefix + m.name, State: cloudprovider.InstanceCreating}
	node := ix.node(m)
	if node != nil && node.Spec.ProviderID != "" {
		inst.ProviderID = node.Spec.ProviderID
	}
	switch {
	case m.deleting || (node == nil && m.opType == operationDelete):
		inst.State = cloudprovider.InstanceDeleting
	case node != nil:
		inst.State = cloudprovider.InstanceRunning
	default:
		inst.Error = m.creationError()
	}
	return inst
}

// buildGroup reads a configured MachineDeployment into a node group.
func (p *Provider) buildGroup(spec Group, l *lists) (*group, error) {
	md, ok := l.deployments[spec.Name]
	if !ok {
		return nil, fmt.Errorf("MachineDeployment %s/%s not found", spec.Namespace, spec.Name)
	}
	// MCM writes a MachineDeployment at zero without spec.replicas (its
	// Go type omits an empty field), so absent is 0.
	replicas, err := machineapi.ReplicasOf(md)
	if err != nil {
		return nil, fmt.Errorf("MachineDeployment %s/%s: %w", spec.Namespace, spec.Name, err)
	}
	sel, err := selector(md)
	if err != nil {
		return nil, err
	}
	g := &group{spec: spec, md: md, machines: map[string]*machine{},
		ng: cloudprovider.NodeGroup{ID: spec.Name, MinSize: spec.Min, MaxSize: spec.Max, TargetSize: replicas}}
	g.ng.Options, g.ng.OptionsInvalid = groupOptions(spec.Name, md.GetAnnotations())
	alive := 0
	for i := range l.machines {
		obj := &l.machines[i]
		if !sel.Matches(labels.Set(obj.GetLabels())) {
			continue
		}
		m := newMachine(obj)
		g.machines[m.name] = m
		g.instances = append(g.instances, m.instance(l.nodes))
		if !m.deleting {
			alive++
		}
	}
	slices.SortFunc(g.instances, func(a, b cloudprovider.Instance) int { return strings.Compare(a.ID, b.ID) })
	g.instances = append(g.instances, machineapi.Placeholders(placeholderPrefix, spec.Name, replicas, alive)...)
	g.ng.Template = p.template(md, l.classes)
	g.ng.ScaleDownBlocked = rollout(md)
	return g, nil
}

// selector is the MachineDeployment's spec.selector (Gardener selects
// name=<machinedeployment>).
func selector(md *unstructured.Unstructured) (labels.Selector, error) {
	raw, found, err := unstructured.NestedMap(md.Object, "spec", "selector")
	if err != nil || !found {
		return nil, fmt.Errorf("MachineDeployment %s: spec.selector is missing", md.GetName())
	}
	var ls metav1.LabelSelector
	if err := machineapi.FromUnstructured(raw, &ls); err != nil {
		return nil, fmt.Errorf("MachineDeployment %s: spec.selector: %w", md.GetName(), err)
	}
	sel, err := metav1.LabelSelectorAsSelector(&ls)
	if err != nil || sel.Empty() {
		return nil, fmt.Errorf("MachineDeployment %s: spec.selector selects nothing or everything: %v", md.GetName(), err)
	}
	return sel, nil
}

// rollout says why the group's nodes must not be removed: MCM is rolling
// the MachineDeployment out and refuses replica decreases meanwhile. It
// is done when the Progressing condition is missing, True with reason
// NewMachineSetAvailable, or Unknown with reason DeploymentPaused.
func rollout(md *unstructured.Unstructured) string {
	conds, _, _ := unstructured.NestedSlice(md.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != "Progressing" {
			continue
		}
		status, _ := m["status"].(string)
		reason, _ := m["reason"].(string)
		if (status == "True" && reason == "NewMachineSetAvailable") || (status == "Unknown" && reason == "DeploymentPaused") {
			return ""
		}
		return fmt.Sprintf("MachineDeployment %s/%s is rolling out (Progressing=%s, reason %s)", md.GetNamespace(), md.GetName(), status, reason)
	}
	return ""
}
