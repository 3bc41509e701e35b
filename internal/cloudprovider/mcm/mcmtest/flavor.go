package mcmtest

import (
	"maps"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kscale/kscale/internal/cloudprovider/mcm"
	"github.com/kscale/kscale/internal/testenv/machinesim"
)

// Flavor is Gardener MCM for machinesim: MachineDeployment ->
// MachineSet -> Machine with the priority annotation "3", the
// trigger-deletion annotation turned into priority 1 by the
// MachineDeployment controller, MCM's deletion order, and failures as
// MCM writes them: lastOperation Create/Failed with the error code, phase
// CrashLoopBackOff until CreationTimeout has passed since the Machine was
// created, then Failed (the MachineSet deletes and replaces it).
type Flavor struct {
	// CreationTimeout is MCM's --machine-creation-timeout; 0 keeps failed
	// Machines in CrashLoopBackOff.
	CreationTimeout time.Duration
}

var (
	_ machinesim.Flavor   = Flavor{}
	_ machinesim.Orderer  = Flavor{}
	_ machinesim.Marker   = Flavor{}
	_ machinesim.Replacer = Flavor{}
)

// Resources returns the MachineDeployment, MachineSet and Machine resources.
func (Flavor) Resources() (deployments, sets, machines schema.GroupVersionResource) {
	return mcm.MachineDeployments, mcm.MachineSets, mcm.Machines
}

// NewSet returns the MachineSet of a MachineDeployment: its selector,
// template and replicas.
func (Flavor) NewSet(d *unstructured.Unstructured) *unstructured.Unstructured {
	spec, _, _ := unstructured.NestedMap(d.Object, "spec")
	out := map[string]any{"replicas": spec["replicas"], "selector": spec["selector"], "template": spec["template"]}
	set := &unstructured.Unstructured{Object: map[string]any{"spec": out}}
	set.SetAPIVersion(mcm.GroupVersion.String())
	set.SetKind("MachineSet")
	labels, _, _ := unstructured.NestedStringMap(spec, "template", "metadata", "labels")
	set.SetLabels(labels)
	return set
}

// NewMachine returns a Machine of a MachineSet: the template's labels
// and spec, priority 3.
func (Flavor) NewMachine(set *unstructured.Unstructured) *unstructured.Unstructured {
	spec, _, _ := unstructured.NestedMap(set.Object, "spec", "template", "spec")
	labels, _, _ := unstructured.NestedStringMap(set.Object, "spec", "template", "metadata", "labels")
	m := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	m.SetAPIVersion(mcm.GroupVersion.String())
	m.SetKind("Machine")
	m.SetLabels(labels)
	m.SetAnnotations(map[string]string{mcm.PriorityAnnotation: "3"})
	return m
}

// Deployment reads Gardener's name label.
func (Flavor) Deployment(m *unstructured.Unstructured) string {
	return m.GetLabels()[mcm.DeploymentNameLabel]
}

// ProviderID reads spec.providerID.
func (Flavor) ProviderID(m *unstructured.Unstructured) string {
	id, _, _ := unstructured.NestedString(m.Object, "spec", "providerID")
	return id
}

// SetProviderID writes spec.providerID and, as MCM does once the node
// joined, the node label; the simulator names nodes after machines.
func (Flavor) SetProviderID(m *unstructured.Unstructured, id string) {
	_ = unstructured.SetNestedField(m.Object, id, "spec", "providerID")
	labels := m.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[mcm.NodeLabel] = m.GetName()
	m.SetLabels(labels)
}

func phase(m *unstructured.Unstructured) string {
	p, _, _ := unstructured.NestedString(m.Object, "status", "currentStatus", "phase")
	return p
}

// Failed reports a failed creation (CrashLoopBackOff or Failed).
func (Flavor) Failed(m *unstructured.Unstructured) bool {
	st, _, _ := unstructured.NestedString(m.Object, "status", "lastOperation", "state")
	return st == "Failed" || phase(m) == "Failed"
}

// MarkFailed writes MCM's creation failure: lastOperation Create/Failed
// with the code and the description MCM's machine controller writes
// ("Cloud provider message - " and the driver's status error), phase
// CrashLoopBackOff.
func (Flavor) MarkFailed(m *unstructured.Unstructured, f machinesim.Failure) {
	now := time.Now().UTC().Format(time.RFC3339)
	_ = unstructured.SetNestedMap(m.Object, map[string]any{"type": "Create", "state": "Failed", "errorCode": f.Reason,
		"description": "Cloud provider message - machine codes error: code = [" + f.Reason + "] message = [" + f.Message + "]", "lastUpdateTime": now}, "status", "lastOperation")
	_ = unstructured.SetNestedMap(m.Object, map[string]any{"phase": "CrashLoopBackOff", "timeoutActive": true, "lastUpdateTime": now},
		"status", "currentStatus")
}

// Expire moves a CrashLoopBackOff Machine to Failed once CreationTimeout
// has passed since it was created.
func (f Flavor) Expire(m *unstructured.Unstructured, now time.Time) bool {
	if f.CreationTimeout == 0 || phase(m) != "CrashLoopBackOff" || now.Sub(m.GetCreationTimestamp().Time) < f.CreationTimeout {
		return false
	}
	_ = unstructured.SetNestedField(m.Object, "Failed", "status", "currentStatus", "phase")
	return true
}

// Terminal reports phase Failed.
func (Flavor) Terminal(m *unstructured.Unstructured) bool { return phase(m) == "Failed" }

// MarkRunning writes phase Running and a successful lastOperation.
func (Flavor) MarkRunning(m *unstructured.Unstructured, _ string) {
	now := time.Now().UTC().Format(time.RFC3339)
	_ = unstructured.SetNestedMap(m.Object, map[string]any{"type": "Create", "state": "Successful",
		"description": "Machine created", "lastUpdateTime": now}, "status", "lastOperation")
	_ = unstructured.SetNestedMap(m.Object, map[string]any{"phase": "Running", "lastUpdateTime": now}, "status", "currentStatus")
}

// NodeMeta returns the node template's labels, the pool and machine name
// labels Gardener nodes carry.
func (Flavor) NodeMeta(m *unstructured.Unstructured) (map[string]string, map[string]string) {
	labels, _, _ := unstructured.NestedStringMap(m.Object, "spec", "nodeTemplate", "metadata", "labels")
	if labels == nil {
		labels = map[string]string{}
	}
	labels = maps.Clone(labels)
	labels["node.gardener.cloud/machine-name"] = m.GetName()
	return labels, nil
}

// DeletePriority is unused: DeleteOrder replaces it.
func (Flavor) DeletePriority(*unstructured.Unstructured) int { return 0 }

// phaseRank is MCM's deletion rank of a phase (lower first).
var phaseRank = map[string]int{"Terminating": 0, "Failed": 1, "CrashLoopBackOff": 2, "Unknown": 3, "Pending": 4, "Available": 5, "Running": 6}

func rank(m *unstructured.Unstructured) int {
	if r, ok := phaseRank[phase(m)]; ok {
		return r
	}
	return phaseRank["Pending"]
}

func priority(m *unstructured.Unstructured) int {
	p, err := strconv.Atoi(m.GetAnnotations()[mcm.PriorityAnnotation])
	if err != nil {
		return 3
	}
	return p
}

func preserved(m *unstructured.Unstructured) bool {
	v, ok := m.GetAnnotations()[mcm.PreserveAnnotation]
	return ok && v != "false"
}

// DeleteOrder is MCM's MachineSet order: not preserved first, lower
// priority, older marked-for-deletion time, lower phase rank, older
// creation.
func (Flavor) DeleteOrder(a, b *unstructured.Unstructured) int {
	if pa, pb := preserved(a), preserved(b); pa != pb {
		if pb {
			return -1
		}
		return 1
	}
	if pa, pb := priority(a), priority(b); pa != pb {
		return pa - pb
	}
	ta, tb := a.GetAnnotations()[mcm.MarkedForDeletionAnnotation], b.GetAnnotations()[mcm.MarkedForDeletionAnnotation]
	if ta != tb && ta != "" && tb != "" {
		return strings.Compare(ta, tb)
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra - rb
	}
	return a.GetCreationTimestamp().Compare(b.GetCreationTimestamp().Time)
}

// Mark is MCM's MachineDeployment controller for the trigger-deletion
// annotation: listed Machines get priority 1 and the marked-for-deletion
// time; entries of Machines that are gone, failed or terminating are
// pruned; a missing replica-change time is filled in.
func (Flavor) Mark(d *unstructured.Unstructured, machines []*unstructured.Unstructured) (bool, []*unstructured.Unstructured) {
	ann := d.GetAnnotations()
	v := ann[mcm.TriggerDeletionAnnotation]
	if v == "" {
		return false, nil
	}
	byName := map[string]*unstructured.Unstructured{}
	for _, m := range machines {
		byName[m.GetName()] = m
	}
	var keep []string
	var changed []*unstructured.Unstructured
	for _, e := range strings.Split(v, ",") {
		name, t, ok := strings.Cut(e, "~")
		if _, err := time.Parse(time.RFC3339, t); !ok || err != nil {
			continue
		}
		m, found := byName[name]
		if !found || m.GetDeletionTimestamp() != nil || phase(m) == "Failed" || phase(m) == "Terminating" {
			continue
		}
		keep = append(keep, e)
		ma := m.GetAnnotations()
		if ma[mcm.PriorityAnnotation] == "1" && ma[mcm.MarkedForDeletionAnnotation] != "" {
			continue
		}
		if ma == nil {
			ma = map[string]string{}
		}
		ma[mcm.PriorityAnnotation] = "1"
		if ma[mcm.MarkedForDeletionAnnotation] == "" {
			ma[mcm.MarkedForDeletionAnnotation] = t
		}
		m.SetAnnotations(ma)
		changed = append(changed, m)
	}
	next := strings.Join(keep, ",")
	changedD := false
	if next != v {
		if next == "" {
			delete(ann, mcm.TriggerDeletionAnnotation)
		} else {
			ann[mcm.TriggerDeletionAnnotation] = next
		}
		changedD = true
	}
	if ann[mcm.ReplicaChangeAnnotation] == "" {
		ann[mcm.ReplicaChangeAnnotation] = time.Now().UTC().Format(time.RFC3339)
		changedD = true
	}
	d.SetAnnotations(ann)
	return changedD, changed
}
