package options

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// TestUnimplementedFlagsTakeOnlyTheirDefault checks every upstream flag
// kscale does not implement: its default parses (as upstream spells it),
// any other value is refused naming the flag.
func TestUnimplementedFlagsTakeOnlyTheirDefault(t *testing.T) {
	for _, f := range unimplementedFlags {
		t.Run(f.name, func(t *testing.T) {
			o := Default()
			fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
			o.AddFlags(fs)
			def := fs.Lookup(f.name).DefValue
			var other string
			switch d := f.def.(type) {
			case bool:
				other = map[bool]string{true: "false", false: "true"}[d]
			case int:
				other = "77"
			case float64:
				other = "0.77"
			case string:
				other = "something"
			case time.Duration:
				other = "7s"
			case []string:
				def, other = "", "value"
			}
			if def != "" || f.def == "" {
				if err := fs.Parse([]string{"--" + f.name + "=" + def}); err != nil {
					t.Fatalf("the default %q: %v", def, err)
				}
			}
			err := fs.Parse([]string{"--" + f.name + "=" + other})
			if err == nil || !strings.Contains(err.Error(), f.name) || !strings.Contains(err.Error(), "only its default") {
				t.Fatalf("--%s=%s: error %v, want a refusal naming the flag", f.name, other, err)
			}
		})
	}
}

// TestUnimplementedFlagsInScenarios checks that a scenario's autoscaler
// section refuses them the same way.
func TestUnimplementedFlagsInScenarios(t *testing.T) {
	o := Default()
	if err := o.Set(map[string]string{"parallel-scale-up": "false"}); err != nil {
		t.Fatal(err)
	}
	err := o.Set(map[string]string{"parallel-scale-up": "true"})
	if err == nil || !strings.Contains(err.Error(), "parallel-scale-up") {
		t.Fatalf("Set(parallel-scale-up=true) = %v, want a *FlagError naming it", err)
	}
}
