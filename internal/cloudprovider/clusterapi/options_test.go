package clusterapi

import (
	"strings"
	"testing"
	"time"
)

func TestScalableOptions(t *testing.T) {
	n := NamesFor("example.org")
	p := n.OptionsPrefix
	for _, tc := range []struct {
		name    string
		ann     map[string]string
		unneed  time.Duration
		invalid []string
	}{
		{name: "none", ann: map[string]string{n.MinSize: "1"}},
		{name: "values are lower-cased", ann: map[string]string{p + "scaledownunneededtime": "5M", p + "scaledownutilizationthreshold": "0.2"},
			unneed: 5 * time.Minute},
		{name: "prefix follows the API group", ann: map[string]string{"cluster.x-k8s.io/autoscaling-options-scaledownunneededtime": "bad"}},
		{name: "bad value", ann: map[string]string{p + "maxnodeprovisiontime": "soon"},
			invalid: []string{`node group "MachineDeployment/ns/md"`, "annotation " + p + "maxnodeprovisiontime", `"soon"`}},
		{name: "maxnodestartuptime is global only", ann: map[string]string{p + "maxnodestartuptime": "5m"},
			invalid: []string{`option "maxnodestartuptime" is not supported here`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &scalable{kind: machineDeploymentK, namespace: "ns", name: "md", annotations: tc.ann}
			o, invalid := r.options(n)
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
			if got := o.ScaleDownUnneededTime; (got == nil) != (tc.unneed == 0) || (got != nil && *got != tc.unneed) {
				t.Errorf("unneeded time %v, want %v", got, tc.unneed)
			}
		})
	}
}
