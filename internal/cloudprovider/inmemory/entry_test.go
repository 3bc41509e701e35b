package inmemory

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/yamlstrict"
)

func TestEntryProblems(t *testing.T) {
	ok := NodeGroupEntry{Name: "a", Max: 3, InstanceTypes: []string{"m5.large"}}
	tests := []struct {
		name   string
		change func(*NodeGroupEntry)
		field  string
		msg    string
	}{
		{"valid", func(*NodeGroupEntry) {}, "", ""},
		{"bad name", func(g *NodeGroupEntry) { g.Name = "A_B" }, "name", "not a valid name"},
		{"no max", func(g *NodeGroupEntry) { g.Max = 0 }, "max", "max: must be set"},
		{"min above max", func(g *NodeGroupEntry) { g.Min = 4 }, "min", "min: need 0 <= min (4) <= max (3)"},
		{"target above max", func(g *NodeGroupEntry) { g.Target = 4 }, "target", "target: 4 outside"},
		{"types and resources", func(g *NodeGroupEntry) { g.Resources = yamlstrict.Resources{"cpu": q("1"), "memory": q("1Gi")} }, "", "exactly one"},
		{"unknown type", func(g *NodeGroupEntry) { g.InstanceTypes = []string{"x9.huge"} }, "instanceTypes", "unknown instance type"},
		{"resources without memory", func(g *NodeGroupEntry) { g.InstanceTypes, g.Resources = nil, yamlstrict.Resources{"cpu": q("1")} }, "resources", "need cpu and memory"},
		{"negative boot", func(g *NodeGroupEntry) { g.BootTime = &yamlstrict.Duration{Duration: -time.Second} }, "bootTime", "must not be negative"},
		{"negative delete", func(g *NodeGroupEntry) { g.DeleteTime = &yamlstrict.Duration{Duration: -time.Second} }, "deleteTime", "must not be negative"},
		{"price", func(g *NodeGroupEntry) { g.PricePerHour = -1 }, "pricePerHour", "pricePerHour: must be a number"},
		{"stockout class", func(g *NodeGroupEntry) { g.StockoutError = &CloudError{Class: "weird"} }, "stockoutError.class", "want out-of-resources or other"},
		{"real node taint", func(g *NodeGroupEntry) { g.RealNodes = &RealNodes{Taints: taints(corev1.Taint{Key: "k"})} }, "realNodes.taints.0", "need a key and an effect"},
		{"real node label", func(g *NodeGroupEntry) { g.RealNodes = &RealNodes{Labels: map[string]string{"a b": ""}} }, "realNodes.labels", "not a valid label key"},
		{"options", func(g *NodeGroupEntry) { g.AutoscalingOptions = map[string]string{"scaledownunneededtime": "soon"} }, "autoscalingOptions", "autoscalingOptions:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := ok
			tt.change(&g)
			ps := g.Problems()
			if tt.msg == "" {
				if len(ps) > 0 {
					t.Fatalf("Problems = %+v, want none", ps)
				}
				return
			}
			if len(ps) != 1 || !strings.Contains(ps[0].Msg, tt.msg) || pathString(ps[0].Path) != tt.field {
				t.Fatalf("Problems = %+v, want one at %q containing %q", ps, tt.field, tt.msg)
			}
			if _, err := g.GroupConfig(); err == nil {
				t.Error("GroupConfig accepted an invalid entry")
			}
		})
	}
}

// TestGroupConfigHonoursEveryField converts an entry that sets every field
// the cloud's group carries and checks each arrived.
func TestGroupConfigHonoursEveryField(t *testing.T) {
	g := NodeGroupEntry{Name: "gpu", Min: 1, Max: 5, Target: 2, Zone: "eu-1a",
		Resources:          yamlstrict.Resources{"cpu": q("4"), "memory": q("16Gi"), "nvidia.com/gpu": q("1")},
		Labels:             map[string]string{"team": "ml"},
		Taints:             taints(corev1.Taint{Key: "gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}),
		BootTime:           &yamlstrict.Duration{Duration: time.Minute},
		DeleteTime:         &yamlstrict.Duration{Duration: 2 * time.Minute},
		Capacity:           &yamlstrict.Capacity{Limit: 2},
		StockoutError:      &CloudError{Message: "no stock"},
		AutoscalingOptions: map[string]string{"scaledownunneededtime": "3m"},
		PricePerHour:       1.5,
	}
	cfg, err := g.GroupConfig()
	if err != nil {
		t.Fatal(err)
	}
	tm := cfg.Template
	switch {
	case cfg.ID != "gpu" || cfg.MaxSize != 5 || cfg.MinSize != 0 || cfg.TargetSize != 0:
		t.Errorf("bounds %+v; want max 5, min and target 0 until the reader applies them", cfg)
	case cfg.BootTime != time.Minute || cfg.DeleteTime != 2*time.Minute || cfg.Capacity != 2:
		t.Errorf("boot %v delete %v capacity %d", cfg.BootTime, cfg.DeleteTime, cfg.Capacity)
	case cfg.StockoutError == nil || cfg.StockoutError.Class != cloudprovider.ErrorOutOfResources || cfg.StockoutError.Code != "Failed":
		t.Errorf("stockout error %+v", cfg.StockoutError)
	case cfg.Options.ScaleDownUnneededTime == nil || *cfg.Options.ScaleDownUnneededTime != 3*time.Minute:
		t.Errorf("options %+v, want scale-down unneeded time 3m", cfg.Options)
	case tm.PricePerHour != 1.5:
		t.Errorf("price %v", tm.PricePerHour)
	case tm.Zones[0] != "eu-1a" || tm.Tags[cloudprovider.TagLabelPrefix+"team"] != "ml" || tm.Tags[cloudprovider.TagTaintPrefix+"gpu"] != "true:NoSchedule":
		t.Errorf("template %+v", tm)
	case tm.InstanceTypes[0].Name != "custom-4000m-16384Mi-nvidia.com_gpu-1":
		t.Errorf("inline type %q", tm.InstanceTypes[0].Name)
	}
	if g.InitialTarget() != 2 {
		t.Errorf("InitialTarget = %d", g.InitialTarget())
	}
}

func TestRealNodesApply(t *testing.T) {
	n := &corev1.Node{}
	n.Labels = map[string]string{"keep": "1", "drop": "1", "over": "old"}
	r := &RealNodes{Labels: map[string]string{"over": "new"}, RemoveLabels: []string{"drop"},
		Taints: taints(corev1.Taint{Key: "t", Effect: corev1.TaintEffectNoExecute})}
	r.Apply(n)
	if n.Labels["keep"] != "1" || n.Labels["over"] != "new" || n.Labels["drop"] != "" || len(n.Spec.Taints) != 1 {
		t.Errorf("node after Apply: labels %v taints %v", n.Labels, n.Spec.Taints)
	}
	var none *RealNodes
	none.Apply(n)
	if len(n.Spec.Taints) != 1 {
		t.Error("a nil RealNodes changed the node")
	}
}

func q(s string) resource.Quantity { return resource.MustParse(s) }

func taints(ts ...corev1.Taint) yamlstrict.K8s[[]corev1.Taint] {
	return yamlstrict.K8s[[]corev1.Taint]{Value: ts}
}

func pathString(p []any) string {
	parts := make([]string, len(p))
	for i, x := range p {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ".")
}
