package kwok_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/kwok"
	"github.com/kscale/kscale/internal/testenv"
)

// fieldsConfig sets the entry fields the kwok provider used to drop.
const fieldsConfig = `
nodeGroups:
- name: priced
  max: 2
  instanceTypes: [m5.large]
  labels: {pool: priced, wrong: tag}
  bootTime: 0s
  pricePerHour: 0.25
  autoscalingOptions: {scaledownunneededtime: 3m, scaledownutilizationthreshold: "0.3"}
  realNodes:
    taints: [{key: startup, effect: NoSchedule}]
    labels: {pool: real}
    removeLabels: [wrong]
`

// TestProviderHonoursEveryField checks, on a real API server, that the
// kwok provider honours autoscalingOptions (the group's options),
// pricePerHour (its template price) and realNodes (the registered nodes
// differ from the template as written).
func TestProviderHonoursEveryField(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	ctx := t.Context()
	cfg, err := kwok.ParseCloudConfig([]byte(fieldsConfig))
	if err != nil {
		t.Fatal(err)
	}
	p := newProvider(t, env, cfg, clocktesting.NewFakeClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)))
	groups, err := p.NodeGroups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 1 {
		t.Fatalf("groups %+v", groups)
	}
	g := groups[0]
	if g.Template.PricePerHour != 0.25 {
		t.Errorf("template price %v, want 0.25", g.Template.PricePerHour)
	}
	o := g.Options
	if o.ScaleDownUnneededTime == nil || *o.ScaleDownUnneededTime != 3*time.Minute ||
		o.ScaleDownUtilizationThreshold == nil || *o.ScaleDownUtilizationThreshold != 0.3 || g.OptionsInvalid != "" {
		t.Errorf("options %+v (invalid %q), want unneeded time 3m and threshold 0.3", o, g.OptionsInvalid)
	}
	if g.Template.Tags[cloudprovider.TagLabelPrefix+"pool"] != "priced" {
		t.Errorf("template tags %v: realNodes must not change the template", g.Template.Tags)
	}
	if err := p.IncreaseSize(ctx, "priced", 1); err != nil {
		t.Fatal(err)
	}
	sync(t, p)
	n := expectNodes(t, env, map[string]int{"priced": 1})["priced"][0]
	if n.Labels["pool"] != "real" || n.Labels["wrong"] != "" {
		t.Errorf("node labels %v, want pool=real and no wrong label", n.Labels)
	}
	if !slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == "startup" && t.Effect == corev1.TaintEffectNoSchedule }) {
		t.Errorf("node taints %v, want the realNodes taint", n.Spec.Taints)
	}
}

// TestParseCloudConfigRefusesBadFields checks that the fields the provider
// used to drop are validated by name.
func TestParseCloudConfigRefusesBadFields(t *testing.T) {
	base := "nodeGroups:\n- name: a\n  max: 1\n  instanceTypes: [m5.large]\n"
	for field, tc := range map[string]struct{ data, want string }{
		"autoscalingOptions": {base + "  autoscalingOptions: {scaledownunneededtime: soon}\n", "line 5: nodeGroups[0] (\"a\"): autoscalingOptions:"},
		"pricePerHour":       {base + "  pricePerHour: -1\n", "line 5: nodeGroups[0] (\"a\"): pricePerHour: must be a number"},
		"realNodes":          {base + "  realNodes: {removeLabels: [\"a b\"]}\n", "nodeGroups[0] (\"a\"): realNodes.removeLabels: \"a b\" is not a valid label key"},
		"realNodes unknown":  {base + "  realNodes: {colour: red}\n", "unknown field colour"},
	} {
		_, err := kwok.ParseCloudConfig([]byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", field, err, tc.want)
		}
	}
}
