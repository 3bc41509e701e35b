// Package features names upstream VPA's feature gates, with upstream's
// defaults, and carries which of them are on to the VPA components.
package features

import "k8s.io/component-base/featuregate"

// The VPA feature gates (upstream vertical-pod-autoscaler pkg/features,
// 1.7 and 1.8). The InPlaceOrRecreate gate went GA in 1.6 and was removed in
// 1.7, so it is not registered: that update mode is always available.
const (
	// InPlace allows update mode InPlace: resize in place, never evict.
	// Components: admission, updater.
	InPlace featuregate.Feature = "InPlace"
	// CPUStartupBoost allows spec.startupBoost: more CPU while a pod starts.
	// Components: admission, updater.
	CPUStartupBoost featuregate.Feature = "CPUStartupBoost"
	// PerVPAConfig allows the per-VPA settings evictAfterOOMSeconds,
	// oomBumpUpRatio, oomMinBumpUp and memoryAggregationInterval{Seconds,Count}.
	// Components: admission, recommender, updater.
	PerVPAConfig featuregate.Feature = "PerVPAConfig"
)

// Specs returns the gates with upstream's defaults: all alpha and off.
func Specs() map[featuregate.Feature]featuregate.FeatureSpec {
	return map[featuregate.Feature]featuregate.FeatureSpec{
		InPlace:         {Default: false, PreRelease: featuregate.Alpha},
		CPUStartupBoost: {Default: false, PreRelease: featuregate.Alpha},
		PerVPAConfig:    {Default: false, PreRelease: featuregate.Alpha},
	}
}

// Gates records which VPA features are on; the zero value is upstream's
// default (all off).
type Gates struct {
	// InPlace allows update mode InPlace.
	InPlace bool
	// CPUStartupBoost allows spec.startupBoost.
	CPUStartupBoost bool
	// PerVPAConfig allows the per-VPA recommender and updater settings.
	PerVPAConfig bool
}

// FromGate reads the VPA gates from g, in which Specs must be registered.
func FromGate(g featuregate.FeatureGate) Gates {
	return Gates{InPlace: g.Enabled(InPlace), CPUStartupBoost: g.Enabled(CPUStartupBoost), PerVPAConfig: g.Enabled(PerVPAConfig)}
}
