package whatif

import (
	"fmt"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kscale/kscale/internal/scenario"
)

// HPA metric names.
const (
	MetricRequestRate = "requestRate"
	MetricCPU         = "cpu"
)

// HPA is a HorizontalPodAutoscaler.
type HPA struct {
	// Metric is requestRate (Pods metric, AverageValue req/s per pod) or
	// cpu (Utilization percent of requests).
	Metric string `yaml:"metric"`
	// Target is the AverageValue (req/s) or the utilization percent.
	Target float64 `yaml:"target"`
	// MinReplicas and MaxReplicas bound the replica count.
	MinReplicas int32 `yaml:"minReplicas"`
	MaxReplicas int32 `yaml:"maxReplicas"`
	// Tolerance is the controller's tolerance (default 0.1).
	Tolerance *float64 `yaml:"tolerance"`
	// SyncPeriod is the controller's period (default 15s, at least the step).
	SyncPeriod scenario.Duration `yaml:"syncPeriod"`
	// Behavior is the HPA's behavior; absent: the legacy rules.
	Behavior *Behavior `yaml:"behavior"`
}

// Behavior is an HPA behavior.
type Behavior struct {
	// ScaleUp and ScaleDown are the two directions' rules.
	ScaleUp   *Rules `yaml:"scaleUp"`
	ScaleDown *Rules `yaml:"scaleDown"`
}

// Rules are one direction of a behavior.
type Rules struct {
	// StabilizationWindow is the window (scale-down default 5m, up 0).
	StabilizationWindow *scenario.Duration `yaml:"stabilizationWindow"`
	// SelectPolicy is Max (default), Min or Disabled.
	SelectPolicy string `yaml:"selectPolicy"`
	// Policies limit the rate; empty: the API defaults.
	Policies []Policy `yaml:"policies"`
	// Tolerance overrides the controller's tolerance in this direction.
	Tolerance *float64 `yaml:"tolerance"`
}

// Policy is one rate policy.
type Policy struct {
	// Type is Pods or Percent.
	Type string `yaml:"type"`
	// Value is the pods or percent per period.
	Value int32 `yaml:"value"`
	// Period is the policy period.
	Period scenario.Duration `yaml:"period"`
}

// VPA is a VerticalPodAutoscaler run by kscale's recommender model and
// updater decisions.
type VPA struct {
	// UpdateMode is Recreate (evict), InPlaceOrRecreate or Initial
	// (requests only at pod creation); Auto means Recreate.
	UpdateMode string `yaml:"updateMode"`
	// ControlledResources are cpu and/or memory (default both).
	ControlledResources []string `yaml:"controlledResources"`
	// MinAllowed and MaxAllowed bound the recommendation.
	MinAllowed scenario.Resources `yaml:"minAllowed"`
	MaxAllowed scenario.Resources `yaml:"maxAllowed"`
	// RecommenderInterval is the recommender's period (default 1m).
	RecommenderInterval scenario.Duration `yaml:"recommenderInterval"`
	// UpdaterInterval is the updater's period (default 1m).
	UpdaterInterval scenario.Duration `yaml:"updaterInterval"`
	// EvictionTolerance is the fraction of replicas the updater may disrupt
	// at once (default 0.5).
	EvictionTolerance *float64 `yaml:"evictionTolerance"`
	// MinReplicas is the least live replica count at which the updater
	// acts (default 2).
	MinReplicas *int `yaml:"minReplicas"`
	// CPUHalfLife is the CPU histogram's decay half-life (default 24h).
	CPUHalfLife scenario.Duration `yaml:"cpuHalfLife"`
}

// HVPA is gardener/hvpa-controller's scaler (v0.17.0): an HPA and a VPA in
// recommendation-only mode whose proposals are mixed by a weight that
// depends on the replica count.
type HVPA struct {
	// HPA is the horizontal part (its metric, target, min/max).
	HPA HPA `yaml:"hpa"`
	// Intervals give the VPA weight (0..100) per replica range.
	Intervals []WeightInterval `yaml:"intervals"`
	// ScaleUp and ScaleDown are the vertical thresholds and windows.
	ScaleUp   HVPADirection `yaml:"scaleUp"`
	ScaleDown HVPADirection `yaml:"scaleDown"`
	// HorizontalScaleUpWindow and HorizontalScaleDownWindow are the
	// horizontal stabilization durations since the last scaling.
	HorizontalScaleUpWindow   scenario.Duration `yaml:"horizontalScaleUpWindow"`
	HorizontalScaleDownWindow scenario.Duration `yaml:"horizontalScaleDownWindow"`
	// MinAllowed and MaxAllowed bound the VPA recommendation.
	MinAllowed scenario.Resources `yaml:"minAllowed"`
	MaxAllowed scenario.Resources `yaml:"maxAllowed"`
}

// WeightInterval is one stage of HVPA.
type WeightInterval struct {
	// StartReplicas and LastReplicas bound the stage (0: the HPA min/max).
	StartReplicas int32 `yaml:"startReplicas"`
	LastReplicas  int32 `yaml:"lastReplicas"`
	// VPAWeight is 0..100.
	VPAWeight int32 `yaml:"vpaWeight"`
}

// HVPADirection are one vertical direction's settings.
type HVPADirection struct {
	// StabilizationWindow is the time since the last scaling before a change.
	StabilizationWindow scenario.Duration `yaml:"stabilizationWindow"`
	// MinChange are the least changes of cpu and memory applied.
	MinChange MinChange `yaml:"minChange"`
}

// MinChange holds the per-resource thresholds.
type MinChange struct {
	// CPU and Memory: the smaller of Value and Percentage of the current
	// request; unset: 200m and 200M.
	CPU    ChangeParams `yaml:"cpu"`
	Memory ChangeParams `yaml:"memory"`
}

// ChangeParams is a threshold as a value and/or a percentage.
type ChangeParams struct {
	// Value is an absolute quantity.
	Value *Quantity `yaml:"value"`
	// Percentage is a percentage of the current request.
	Percentage *int64 `yaml:"percentage"`
}

// Expectation is one assertion on a configuration's totals.
type Expectation struct {
	// Configuration names the configuration.
	Configuration string `yaml:"configuration"`
	// Metric is a field of Totals by its JSON name.
	Metric string `yaml:"metric"`
	// AtMost, AtLeast and Equals bound the value.
	AtMost  *float64 `yaml:"atMost"`
	AtLeast *float64 `yaml:"atLeast"`
	Equals  *float64 `yaml:"equals"`
	// LessThan names another configuration whose value must be larger.
	LessThan string `yaml:"lessThan"`
}

// Quantity is a resource quantity written as in Kubernetes (500m, 2Gi).
type Quantity struct {
	// Q is the parsed quantity.
	Q resource.Quantity
	// Set reports whether the file wrote it.
	Set bool
}

// UnmarshalYAML parses a quantity.
func (q *Quantity) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &scenario.ParseError{Line: n.Line, Msg: "want a quantity such as 500m or 2Gi"}
	}
	v, err := resource.ParseQuantity(n.Value)
	if err != nil || v.Sign() < 0 {
		return &scenario.ParseError{Line: n.Line, Msg: fmt.Sprintf("bad quantity %q: want a non-negative value such as 500m or 2Gi", n.Value)}
	}
	q.Q, q.Set = v, true
	return nil
}

// Float returns the quantity as a float (cores for CPU, bytes for memory).
func (q Quantity) Float() float64 { return q.Q.AsApproximateFloat64() }
