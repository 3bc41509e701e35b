package recommender

import (
	"time"

	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/vpa/model"
)

// Overrides returns the per-container aggregation settings a VPA's
// container policies set (gate PerVPAConfig): oomBumpUpRatio, oomMinBumpUp
// (bytes), memoryAggregationIntervalSeconds and
// memoryAggregationIntervalCount, keyed by container name ("*" for the
// rest). Policies that set none are left out; nil when none sets any.
// Values the admission webhook would reject (ratio < 1, negative bump,
// interval or count < 1) are ignored, keeping the recommender's flags.
func Overrides(policy *vpav1.PodResourcePolicy) map[string]model.Overrides {
	if policy == nil {
		return nil
	}
	var out map[string]model.Overrides
	for i := range policy.ContainerPolicies {
		cp := &policy.ContainerPolicies[i]
		o := containerOverrides(cp)
		if o == (model.Overrides{}) {
			continue
		}
		if out == nil {
			out = map[string]model.Overrides{}
		}
		out[cp.ContainerName] = o
	}
	return out
}

func containerOverrides(cp *vpav1.ContainerResourcePolicy) model.Overrides {
	var o model.Overrides
	if r := cp.OOMBumpUpRatio; r != nil && r.MilliValue() >= 1000 {
		o.OOMBumpUpRatio = float64(r.MilliValue()) / 1000
	}
	if b := cp.OOMMinBumpUp; b != nil && b.Sign() >= 0 {
		o.OOMMinBumpUpBytes, o.HasOOMMinBumpUp = float64(b.Value()), true
	}
	if s := cp.MemoryAggregationIntervalSeconds; s != nil && *s >= 1 {
		o.MemoryAggregationInterval = time.Duration(*s) * time.Second
	}
	if n := cp.MemoryAggregationIntervalCount; n != nil && *n >= 1 {
		o.MemoryAggregationIntervalCount = *n
	}
	return o
}
