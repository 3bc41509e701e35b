package mcm

import (
	"strings"
	"testing"
	"time"
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
			for _, want := range tc.invalid {
				if !strings.Contains(invalid, want) {
					t.Errorf("OptionsInvalid %q does not mention %q", invalid, want)
				}
			}
			if tc.invalid != nil {
				if o.Set() {
					t.Errorf("options %+v set despite %q", o, invalid)
				}
				return
			}
			if invalid != "" {
				t.Fatalf("OptionsInvalid %q", invalid)
			}
			if got := o.ScaleDownUtilizationThreshold; (got == nil) != (tc.threshold == 0) || (got != nil && *got != tc.threshold) {
				t.Errorf("threshold %v, want %v", got, tc.threshold)
			}
			if got := o.MaxNodeProvisionTime; (got == nil) != (tc.provision == 0) || (got != nil && *got != tc.provision) {
				t.Errorf("provision time %v, want %v", got, tc.provision)
			}
		})
	}
}
