package inmemory

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/yamlstrict"
)

// RealNodes describes how a group's registered nodes differ from what its
// template (the provider's tags) says, as when another controller taints
// every new node or a tag is wrong.
type RealNodes struct {
	// Taints are put on every node of the group when it registers.
	Taints yamlstrict.K8s[[]corev1.Taint] `yaml:"taints"`
	// Labels are set on every node of the group, overriding the
	// template's values.
	Labels map[string]string `yaml:"labels"`
	// RemoveLabels are template labels the nodes do not carry.
	RemoveLabels []string `yaml:"removeLabels"`
}

// Problems returns the invalid fields; a nil RealNodes has none.
func (r *RealNodes) Problems() []EntryProblem {
	if r == nil {
		return nil
	}
	var out []EntryProblem
	effects := []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}
	for i, t := range r.Taints.Value {
		if !slices.Contains(effects, t.Effect) || t.Key == "" {
			out = append(out, EntryProblem{Path: []any{"taints", i}, Msg: "realNodes.taints: need a key and an effect of NoSchedule, PreferNoSchedule or NoExecute"})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(r.Labels)) {
		if len(validation.IsQualifiedName(k)) > 0 {
			out = append(out, EntryProblem{Path: []any{"labels"}, Msg: fmt.Sprintf("realNodes.labels: %q is not a valid label key", k)})
		}
	}
	for _, k := range r.RemoveLabels {
		if len(validation.IsQualifiedName(k)) > 0 {
			out = append(out, EntryProblem{Path: []any{"removeLabels"}, Msg: fmt.Sprintf("realNodes.removeLabels: %q is not a valid label key", k)})
		}
	}
	return out
}

// Apply makes a registering node differ from its group's template as r
// says; a nil RealNodes changes nothing.
func (r *RealNodes) Apply(n *corev1.Node) {
	if r == nil {
		return
	}
	for _, k := range r.RemoveLabels {
		delete(n.Labels, k)
	}
	if n.Labels == nil && len(r.Labels) > 0 {
		n.Labels = map[string]string{}
	}
	for k, v := range r.Labels {
		n.Labels[k] = v
	}
	n.Spec.Taints = append(n.Spec.Taints, r.Taints.Value...)
}

// CloudError is an instance creation error the cloud reports.
type CloudError struct {
	// Class is out-of-resources or other (the default depends on where
	// the error is written).
	Class string `yaml:"class"`
	// Code is the cloud's error code (default Failed).
	Code string `yaml:"code"`
	// Message is the error text.
	Message string `yaml:"message"`
}

// Problems returns the invalid fields; a nil CloudError has none.
func (e *CloudError) Problems() []EntryProblem {
	if e == nil || e.Class == "" || e.Class == string(cloudprovider.ErrorOutOfResources) || e.Class == string(cloudprovider.ErrorOther) {
		return nil
	}
	return []EntryProblem{{Path: []any{"class"}, Msg: fmt.Sprintf("class: want out-of-resources or other, got %q", e.Class)}}
}

// Info converts the error, with class defaultClass when none is written
// and code Failed when none is.
func (e CloudError) Info(defaultClass cloudprovider.ErrorClass) cloudprovider.ErrorInfo {
	info := cloudprovider.ErrorInfo{Class: cloudprovider.ErrorClass(e.Class), Code: e.Code, Message: e.Message}
	if info.Class == "" {
		info.Class = defaultClass
	}
	if info.Code == "" {
		info.Code = "Failed"
	}
	return info
}
