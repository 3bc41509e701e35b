package whatif

import (
	"time"

	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"

	"github.com/kscale/kscale/internal/scenario"
	"github.com/kscale/kscale/internal/whatif/hpa"
)

// defaultStep is the simulation's resolution unless the file sets one.
const defaultStep = 30 * time.Second

func (f *File) step() time.Duration {
	if f.Step.Duration > 0 {
		return f.Step.Duration
	}
	return defaultStep
}

func (h *HPA) syncPeriod() time.Duration {
	if h.SyncPeriod.Duration > 0 {
		return h.SyncPeriod.Duration
	}
	return 15 * time.Second
}

func (h *HPA) tolerance() float64 {
	if h.Tolerance != nil {
		return *h.Tolerance
	}
	return 0.1
}

// normalized returns the behavior with the API server's defaults filled
// in (nil without one: the legacy rules) and the tolerances.
func (h *HPA) normalized() (*hpa.Behavior, hpa.Tolerances) {
	tol := hpa.Tolerances{Up: h.tolerance(), Down: h.tolerance()}
	if h.Behavior == nil {
		return nil, tol
	}
	b := hpa.DefaultBehavior(5 * time.Minute)
	fill(&b.Up, h.Behavior.ScaleUp, &tol.Up)
	fill(&b.Down, h.Behavior.ScaleDown, &tol.Down)
	return &b, tol
}

func fill(out *hpa.Rules, in *Rules, tol *float64) {
	if in == nil {
		return
	}
	if in.StabilizationWindow != nil {
		out.Window = in.StabilizationWindow.Duration
	}
	if in.SelectPolicy != "" {
		out.Select = in.SelectPolicy
	}
	if len(in.Policies) > 0 {
		out.Policies = out.Policies[:0:0]
		for _, p := range in.Policies {
			out.Policies = append(out.Policies, hpa.Policy{Type: p.Type, Value: p.Value, Period: p.Period.Duration})
		}
	}
	if in.Tolerance != nil {
		*tol = *in.Tolerance
	}
}

func (v *VPA) mode() vpav1.UpdateMode {
	switch v.UpdateMode {
	case "", "Auto":
		return vpav1.UpdateModeRecreate
	}
	return vpav1.UpdateMode(v.UpdateMode)
}

func (v *VPA) recommenderInterval() time.Duration {
	if v.RecommenderInterval.Duration > 0 {
		return v.RecommenderInterval.Duration
	}
	return time.Minute
}

func (v *VPA) updaterInterval() time.Duration {
	if v.UpdaterInterval.Duration > 0 {
		return v.UpdaterInterval.Duration
	}
	return time.Minute
}

// cpuMem returns a resource list's cpu (cores) and memory (bytes).
func cpuMem(r scenario.Resources) (float64, float64) {
	l := r.List()
	return l.Cpu().AsApproximateFloat64(), l.Memory().AsApproximateFloat64()
}
