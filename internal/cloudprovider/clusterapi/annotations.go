package clusterapi

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
)

// ParseLabels parses the labels capacity annotation, "k1=v1,k2=v2".
func ParseLabels(s string) (map[string]string, error) {
	out := map[string]string{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, item := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return nil, fmt.Errorf("label %q: want key=value", item)
		}
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return nil, fmt.Errorf("label key %q: %s", k, strings.Join(errs, "; "))
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return nil, fmt.Errorf("label %q value %q: %s", k, v, strings.Join(errs, "; "))
		}
		out[k] = v
	}
	return out, nil
}

// ParseTaints parses the taints capacity annotation, a comma-separated
// list of key=value:Effect or key:Effect.
func ParseTaints(s string) ([]corev1.Taint, error) {
	var out []corev1.Taint
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, item := range strings.Split(s, ",") {
		t, err := parseTaint(strings.TrimSpace(item))
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func parseTaint(item string) (corev1.Taint, error) {
	kv, effect, ok := strings.Cut(item, ":")
	if !ok {
		return corev1.Taint{}, fmt.Errorf("taint %q: want key=value:Effect or key:Effect", item)
	}
	k, v, _ := strings.Cut(kv, "=")
	t := corev1.Taint{Key: k, Value: v, Effect: corev1.TaintEffect(effect)}
	if errs := validation.IsQualifiedName(k); len(errs) > 0 {
		return corev1.Taint{}, fmt.Errorf("taint %q: key: %s", item, strings.Join(errs, "; "))
	}
	if v != "" {
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return corev1.Taint{}, fmt.Errorf("taint %q: value: %s", item, strings.Join(errs, "; "))
		}
	}
	switch t.Effect {
	case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		return t, nil
	}
	return corev1.Taint{}, fmt.Errorf("taint %q: effect %q is not NoSchedule, PreferNoSchedule or NoExecute", item, effect)
}

// capacityFromAnnotations reads cpu, memory, ephemeral-disk, maxPods and
// the GPU type and count; pods defaults to 110.
func capacityFromAnnotations(ann map[string]string) (corev1.ResourceList, error) {
	out := corev1.ResourceList{corev1.ResourcePods: *resource.NewQuantity(defaultMaxPods, resource.DecimalSI)}
	for key, name := range map[string]corev1.ResourceName{CPUAnnotation: corev1.ResourceCPU, MemoryAnnotation: corev1.ResourceMemory,
		DiskAnnotation: corev1.ResourceEphemeralStorage, MaxPodsAnnotation: corev1.ResourcePods} {
		v, ok := ann[key]
		if !ok {
			continue
		}
		q, err := resource.ParseQuantity(v)
		if err != nil || q.Sign() < 0 {
			return nil, fmt.Errorf("annotation %s: %q is not a non-negative quantity", key, v)
		}
		out[name] = q
	}
	gpuType, hasType := ann[GPUTypeAnnotation]
	gpuCount, hasCount := ann[GPUCountAnnotation]
	if hasType != hasCount {
		return nil, fmt.Errorf("annotations %s and %s: set both or neither", GPUTypeAnnotation, GPUCountAnnotation)
	}
	if hasType {
		if errs := validation.IsQualifiedName(gpuType); len(errs) > 0 {
			return nil, fmt.Errorf("annotation %s: %q: %s", GPUTypeAnnotation, gpuType, strings.Join(errs, "; "))
		}
		q, err := resource.ParseQuantity(gpuCount)
		if err != nil || q.Sign() < 0 {
			return nil, fmt.Errorf("annotation %s: %q is not a non-negative quantity", GPUCountAnnotation, gpuCount)
		}
		out[corev1.ResourceName(gpuType)] = q
	}
	return out, nil
}

// managedLabel reports whether Cluster API propagates a Machine label to
// its node: node-role.kubernetes.io, *.node-restriction.kubernetes.io and
// *.node.cluster.x-k8s.io keys.
func managedLabel(key string) bool {
	domain, _, ok := strings.Cut(key, "/")
	if !ok {
		return false
	}
	return domain == "node-role.kubernetes.io" || domain == "node-restriction.kubernetes.io" ||
		strings.HasSuffix(domain, ".node-restriction.kubernetes.io") ||
		domain == "node.cluster.x-k8s.io" || strings.HasSuffix(domain, ".node.cluster.x-k8s.io")
}
