package mcm

import (
	"testing"
	"time"

	"github.com/kscale/kscale/internal/cloudprovider/optionstest"
)

func TestGroupOptions(t *testing.T) {
	for _, tc := range []struct {
		name      string
		ann       map[string]string
		threshold float64 // 0: unset
		provision time.Duration
		invalid   []string
	}{
		{name: "Gardener's empty defaults are unset", ann: map[string]string{ScaleDownUtilizationThresholdAnnotation: "",
			ScaleDownUnneededTimeAnnotation: "", MaxNodeProvisionTimeAnnotation: ""}},
		{name: "values", ann: map[string]string{ScaleDownUtilizationThresholdAnnotation: "0.3", MaxNodeProvisionTimeAnnotation: "25m",
			ScaleDownUnneededTimeAnnotation: ""}, threshold: 0.3, provision: 25 * time.Minute},
		{name: "bad value", ann: map[string]string{ScaleDownUnreadyTimeAnnotation: "20", ScaleDownUtilizationThresholdAnnotation: "0.3"},
			invalid: []string{`node group "md-1"`, "annotation " + ScaleDownUnreadyTimeAnnotation, "not a duration"}},
		{name: "other annotations are not options", ann: map[string]string{"autoscaler.gardener.cloud/other": "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, invalid := groupOptions("md-1", tc.ann)
			if !optionstest.Valid(t, o, invalid, tc.invalid) {
				return
			}
			optionstest.Fraction(t, "threshold", o.ScaleDownUtilizationThreshold, tc.threshold)
			optionstest.Duration(t, "provision time", o.MaxNodeProvisionTime, tc.provision)
		})
	}
}
