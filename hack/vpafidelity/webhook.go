package vpafidelity

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourceadmission "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/admission-controller/resource"
	"k8s.io/autoscaler/vertical-pod-autoscaler/pkg/admission-controller/resource/pod/patch"
	uprec "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/admission-controller/resource/pod/recommendation"
	vpautil "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/utils/vpa"

	"github.com/kscale/kscale/internal/vpa/admission"
	"github.com/kscale/kscale/internal/vpa/recommendation"
)

// CompareWebhook applies upstream's pod patches (resource updates, then
// observed containers, as upstream's pod handler orders its calculators)
// and kscale's admission.PodPatch to copies of the case's pod, and compares
// the resulting containers' requests and limits and the pod's annotations.
// Startup boosts are off on both sides.
func CompareWebhook(c *PodCase) []Diff {
	var out []Diff
	add := func(kind, container, format string, a ...any) {
		out = append(out, Diff{Kind: kind, Container: container, Detail: fmt.Sprintf(format, a...)})
	}
	calc, err := limitRangeCalculator(c.LimitRange)
	if err != nil {
		panic(err.Error())
	}
	provider := uprec.NewProvider(calc, vpautil.NewCappingRecommendationProcessor(calc))
	upCalcs := []patch.Calculator{patch.NewResourceUpdatesCalculator(provider, resource.QuantityValue{}), patch.NewObservedContainersCalculator()}
	var upOps []resourceadmission.PatchRecord
	if c.Pod.Annotations == nil {
		upOps = append(upOps, patch.GetAddEmptyAnnotationsPatch())
	}
	for _, calc := range upCalcs {
		ops, err := calculatePatches(calc, c)
		if err != nil {
			kind := "webhook-upstream-error"
			if errors.Is(err, errUpstreamPanic) {
				kind = upstreamPanics
			}
			add(kind, "", "%v", err)
			return out
		}
		upOps = append(upOps, ops...)
	}
	processed := recommendation.Process(c.Pod, c.VPA.Status.Recommendation, c.VPA.Spec.ResourcePolicy,
		recommendation.MergeLimitRanges([]corev1.LimitRange{*c.LimitRange}))
	ksOps := admission.PodPatch(c.Pod, c.VPA, processed)
	up, upErr := applyOps(c.Pod, upOps)
	ks, ksErr := applyOps(c.Pod, ksOps)
	if upErr != nil || ksErr != nil {
		if (upErr == nil) != (ksErr == nil) {
			add("webhook-patch", "", "applying: upstream error %v, kscale error %v", upErr, ksErr)
		}
		return out
	}
	for i := range up.Spec.Containers {
		u, k := up.Spec.Containers[i].Resources, ks.Spec.Containers[i].Resources
		if !sameList(u.Requests, k.Requests) || !sameList(u.Limits, k.Limits) {
			add("webhook-patch", up.Spec.Containers[i].Name, "requests/limits: upstream %s/%s, kscale %s/%s",
				listString(u.Requests), listString(u.Limits), listString(k.Requests), listString(k.Limits))
		}
	}
	uu, ku := up.Annotations[admission.UpdatesAnnotation], ks.Annotations[admission.UpdatesAnnotation]
	if up.Annotations[admission.ObservedContainersAnnotation] != ks.Annotations[admission.ObservedContainersAnnotation] ||
		len(up.Annotations) != len(ks.Annotations) || updatedItems(uu) != updatedItems(ku) {
		add("webhook-annotations", "", "upstream %v, kscale %v", up.Annotations, ks.Annotations)
	} else if uu != ku {
		add(Open+"updates-annotation-notes", "", "upstream %q, kscale %q", uu, ku)
	}
	return out
}

// updatedItems reduces a vpaUpdates annotation to its "container N: X
// request|limit" items, sorted: upstream lists a container's resources in
// map order and adds its capping notes, kscale does neither.
func updatedItems(v string) string {
	_, list, _ := strings.Cut(v, ": ")
	var items []string
	for _, c := range strings.Split(list, "; ") {
		name, rest, _ := strings.Cut(c, ": ")
		for _, it := range strings.Split(rest, ", ") {
			if res, kind, ok := strings.Cut(it, " "); ok && (res == "cpu" || res == "memory") && (kind == "request" || kind == "limit") {
				items = append(items, name+": "+it)
			}
		}
	}
	slices.Sort(items)
	return strings.Join(items, "; ")
}

// calculatePatches runs one upstream patch calculator, turning its panics
// into errors.
func calculatePatches(calc patch.Calculator, c *PodCase) (ops []resourceadmission.PatchRecord, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", errUpstreamPanic, p)
		}
	}()
	return calc.CalculatePatches(c.Pod, c.VPA)
}

// applyOps applies a JSON patch (any list of op/path/value objects) to a
// copy of pod.
func applyOps(pod *corev1.Pod, ops any) (*corev1.Pod, error) {
	doc, err := json.Marshal(pod)
	if err != nil {
		return nil, fmt.Errorf("encoding the pod: %w", err)
	}
	raw, err := json.Marshal(ops)
	if err != nil {
		return nil, fmt.Errorf("encoding the patch: %w", err)
	}
	p, err := jsonpatch.DecodePatch(raw)
	if err != nil {
		return nil, fmt.Errorf("decoding the patch: %w", err)
	}
	patched, err := p.Apply(doc)
	if err != nil {
		return nil, fmt.Errorf("applying the patch: %w", err)
	}
	out := &corev1.Pod{}
	if err := json.Unmarshal(patched, out); err != nil {
		return nil, fmt.Errorf("decoding the patched pod: %w", err)
	}
	return out, nil
}
