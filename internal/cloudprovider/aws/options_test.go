package aws

import (
	"testing"
	"time"

	"github.com/kscale/kscale/internal/cloudprovider/optionstest"
)

func TestGroupOptions(t *testing.T) {
	p := OptionsTagPrefix
	for _, tc := range []struct {
		name    string
		tags    map[string]string
		unneed  time.Duration // 0: unset
		ignoreD bool
		invalid []string
	}{
		{name: "no option tags", tags: map[string]string{"Name": "x"}},
		{name: "upstream keys", tags: map[string]string{p + "scaledownunneededtime": "3m", p + "ignoredaemonsetsutilization": "true",
			p + "scaledownutilizationthreshold": "0.4"}, unneed: 3 * time.Minute, ignoreD: true},
		{name: "a bad value drops every option", tags: map[string]string{p + "scaledownunneededtime": "3m", p + "scaledownunreadytime": "later"},
			invalid: []string{`node group "asg-1"`, "tag " + p + "scaledownunreadytime", `"later"`}},
		{name: "keys upstream's AWS provider does not read", tags: map[string]string{p + "maxnodeprovisiontime": "5m"},
			invalid: []string{`option "maxnodeprovisiontime" is not supported here`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, invalid := groupOptions("asg-1", tc.tags)
			if !optionstest.Valid(t, o, invalid, tc.invalid) {
				return
			}
			optionstest.Duration(t, "unneeded time", o.ScaleDownUnneededTime, tc.unneed)
			if got := o.IgnoreDaemonSetsUtilization; (got != nil && *got) != tc.ignoreD {
				t.Errorf("ignore daemonsets %v, want %v", got, tc.ignoreD)
			}
		})
	}
}
