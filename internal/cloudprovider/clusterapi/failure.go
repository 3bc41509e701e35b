package clusterapi

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kscale/kscale/internal/cloudprovider"
)

// Error codes of failed Machines without a reason of their own.
const (
	CodeProvisioningFailed = "ProvisioningFailed"
	// phaseFailed is the v1beta1 phase of a Machine with a terminal
	// failure; controllers of Cluster API v1.11 and later never set it.
	phaseFailed = "Failed"
)

// outOfResourcesReasons are failure reasons of a cloud without capacity:
// Cluster API's deprecated InsufficientResourcesMachineError and the
// reason infrastructure providers use on their conditions.
var outOfResourcesReasons = []string{"InsufficientResources", "InsufficientCapacity", "InsufficientInstanceCapacity"}

// failureConditions are the Machine conditions that mirror its
// infrastructure and bootstrap objects; a terminal failure of either shows
// there since v1beta2 dropped failureReason and failureMessage.
var failureConditions = []string{"InfrastructureReady", "BootstrapConfigReady"}

// condition is one Machine condition.
type condition struct {
	typ, status, reason, message string
}

// readConditions reads status.conditions (v1beta2 conditions when read
// as v1beta2, v1beta1 ones when read as v1beta1) and status.v1beta2.conditions
// (the v1beta2 ones of an object read as v1beta1).
func readConditions(obj *unstructured.Unstructured) []condition {
	var out []condition
	for _, path := range [][]string{{"status", "conditions"}, {"status", "v1beta2", "conditions"}} {
		items, _, _ := unstructured.NestedSlice(obj.Object, path...)
		for _, it := range items {
			m, ok := it.(map[string]any)
			if !ok {
				continue
			}
			str := func(k string) string { s, _ := m[k].(string); return s }
			out = append(out, condition{typ: str("type"), status: str("status"), reason: str("reason"), message: str("message")})
		}
	}
	return out
}

// terminalReason reports whether a False condition's reason says
// provisioning failed rather than is still under way. Cluster API's
// v1beta2 contract leaves terminal failures to documented provider
// reasons; kscale takes the common shape of those: a reason ending in
// "Failed" (InstanceProvisionFailed, VMProvisionFailed, ...) or a
// capacity reason. Cluster API's own reasons for these conditions
// (NotReady, DoesNotExist, InternalError, ...) never match.
func terminalReason(reason string) bool {
	return strings.HasSuffix(reason, "Failed") || isOutOfResources(reason)
}

func isOutOfResources(reason string) bool {
	for _, r := range outOfResourcesReasons {
		if reason == r {
			return true
		}
	}
	return false
}

// failure returns the creation error of a Machine that failed before
// getting a node, or nil. Two signals count:
//   - v1beta1 semantics: phase Failed; the code and message come from
//     failureReason/failureMessage (status or status.deprecated.v1beta1).
//     The failure fields alone do not count: providers set them while still
//     retrying (as upstream fixed in kubernetes/autoscaler#10001);
//   - v1beta2 semantics: InfrastructureReady or BootstrapConfigReady is
//     False with a terminal reason (see terminalReason).
//
// Capacity reasons are out-of-resources, anything else other.
func (m *machine) failure() *cloudprovider.ErrorInfo {
	if m.phase == phaseFailed {
		e := &cloudprovider.ErrorInfo{Class: cloudprovider.ErrorOther, Code: m.failureReason, Message: m.failureMessage}
		if e.Code == "" {
			e.Code = CodeProvisioningFailed
		}
		if e.Message == "" {
			e.Message = fmt.Sprintf("Machine %s provisioning failed (phase %q)", m.id(), m.phase)
		}
		if isOutOfResources(m.failureReason) {
			e.Class = cloudprovider.ErrorOutOfResources
		}
		return e
	}
	for _, c := range m.conditions {
		if c.status != "False" || !terminalReason(c.reason) || !isFailureCondition(c.typ) {
			continue
		}
		e := &cloudprovider.ErrorInfo{Class: cloudprovider.ErrorOther, Code: c.reason,
			Message: fmt.Sprintf("Machine %s: %s is False (%s)", m.id(), c.typ, c.reason)}
		if c.message != "" {
			e.Message += ": " + c.message
		}
		if isOutOfResources(c.reason) {
			e.Class = cloudprovider.ErrorOutOfResources
		}
		return e
	}
	return nil
}

func isFailureCondition(typ string) bool {
	for _, t := range failureConditions {
		if t == typ {
			return true
		}
	}
	return false
}
