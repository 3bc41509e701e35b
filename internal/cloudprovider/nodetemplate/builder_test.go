package nodetemplate

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/cloudprovider"
)

func TestFromProviderMixedTypesAndTags(t *testing.T) {
	g := cloudprovider.NodeGroup{ID: "ng", Template: cloudprovider.Template{
		InstanceTypes: []cloudprovider.InstanceType{
			{Name: "c4.xlarge", Capacity: rl("cpu", "4", "memory", "7680Mi", "pods", "110")},
			{Name: "r4.large", Capacity: rl("cpu", "2", "memory", "15616Mi", "pods", "110")},
		},
		Zones: []string{"eu-central-1b", "eu-central-1a"},
		Tags: map[string]string{
			cloudprovider.TagLabelPrefix + "zalando.org/scaling-priority": "100",
			cloudprovider.TagTaintPrefix + "dedicated":                    "batch:NoSchedule",
			cloudprovider.TagTaintPrefix + "zalando.org/node-not-ready":   ":NoSchedule",
			cloudprovider.TagResourcePrefix + "ephemeral-storage":         "50Gi",
		},
	}}
	ignore := func(k string) bool { return k == "zalando.org/node-not-ready" }
	n, err := FromProvider(g, NewEstimator(), ignore)
	if err != nil {
		t.Fatal(err)
	}
	assertList(t, "capacity", n.Status.Capacity, rl("cpu", "2", "memory", "7680Mi", "ephemeral-storage", "50Gi"))
	assertList(t, "allocatable", n.Status.Allocatable, rl("cpu", "2", "memory", "7680Mi", "ephemeral-storage", "50Gi"))
	if n.Labels[LabelInstanceType] != MultipleTypes || n.Labels[LabelZone] != "eu-central-1b" ||
		n.Labels["zalando.org/scaling-priority"] != "100" || n.Labels[LabelHostname] != n.Name {
		t.Fatalf("labels %v", n.Labels)
	}
	if len(n.Spec.Taints) != 1 || n.Spec.Taints[0].Key != "dedicated" || n.Spec.Taints[0].Effect != corev1.TaintEffectNoSchedule {
		t.Fatalf("taints %v", n.Spec.Taints)
	}
	g.Template.Tags[cloudprovider.TagTaintPrefix+"bad"] = "novalue"
	if _, err := FromProvider(g, NewEstimator(), ignore); err == nil || !strings.Contains(err.Error(), "bad") {
		t.Fatalf("bad taint tag: %v", err)
	}
}

func TestFromProviderArchitecture(t *testing.T) {
	for _, tc := range []struct {
		name string
		arch string
		tags map[string]string
		want string
	}{
		{name: "unset is amd64", want: "amd64"},
		{name: "graviton", arch: "arm64", want: "arm64"},
		{name: "a label tag wins", arch: "arm64", tags: map[string]string{cloudprovider.TagLabelPrefix + LabelArch: "amd64"}, want: "amd64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := cloudprovider.NodeGroup{ID: "ng", Template: cloudprovider.Template{Tags: tc.tags,
				InstanceTypes: []cloudprovider.InstanceType{{Name: "m6g.large", Architecture: tc.arch, Capacity: rl("cpu", "2", "memory", "8Gi")}}}}
			n, err := FromProvider(g, NewEstimator(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := n.Labels[LabelArch]; got != tc.want {
				t.Errorf("%s = %q, want %q", LabelArch, got, tc.want)
			}
		})
	}
}

func TestFromProviderExplicitTaintsAndUnknownType(t *testing.T) {
	g := cloudprovider.NodeGroup{ID: "MachineDeployment/ns/md", Template: cloudprovider.Template{
		InstanceTypes: []cloudprovider.InstanceType{{Capacity: rl("cpu", "2", "memory", "4Gi")}},
		Taints: []corev1.Taint{
			{Key: "gpu", Value: "a", Effect: corev1.TaintEffectNoSchedule},
			{Key: "gpu", Value: "a", Effect: corev1.TaintEffectNoExecute},
			{Key: "startup", Effect: corev1.TaintEffectNoSchedule},
		},
		Tags: map[string]string{cloudprovider.TagTaintPrefix + "gpu": "b:NoExecute"},
	}}
	n, err := FromProvider(g, NewEstimator(), func(k string) bool { return k == "startup" })
	if err != nil {
		t.Fatal(err)
	}
	want := []corev1.Taint{
		{Key: "gpu", Value: "b", Effect: corev1.TaintEffectNoExecute},
		{Key: "gpu", Value: "a", Effect: corev1.TaintEffectNoSchedule},
	}
	if len(n.Spec.Taints) != len(want) {
		t.Fatalf("taints %v, want %v", n.Spec.Taints, want)
	}
	for i := range want {
		if n.Spec.Taints[i] != want[i] {
			t.Fatalf("taints %v, want %v", n.Spec.Taints, want)
		}
	}
	if _, ok := n.Labels[LabelInstanceType]; ok {
		t.Fatalf("an unnamed instance type must leave out %s: %v", LabelInstanceType, n.Labels)
	}
	if _, ok := n.Labels[LabelInstanceTypeBeta]; ok {
		t.Fatalf("an unnamed instance type must leave out %s: %v", LabelInstanceTypeBeta, n.Labels)
	}
	g.Template = cloudprovider.Template{UnavailableReason: "no capacity annotations"}
	if _, err := FromProvider(g, NewEstimator(), nil); err == nil || !strings.Contains(err.Error(), "no capacity annotations") {
		t.Fatalf("unavailable template: %v", err)
	}
}
