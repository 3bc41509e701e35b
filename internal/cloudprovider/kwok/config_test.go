package kwok_test

import (
	"os"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes/fake"

	"github.com/kscale/kscale/internal/cloudprovider/kwok"
)

func TestParseCloudConfig(t *testing.T) {
	tests := []struct {
		name, data, wantErr string
		groups              int
	}{
		{name: "catalog and inline groups", groups: 2, data: `
nodeGroups:
- name: small
  max: 3
  instanceTypes: [m5.large]
  labels: {pool: small}
  taints: [{key: dedicated, value: batch, effect: NoSchedule}]
  bootTime: 5s
  capacity: 2
- name: custom
  min: 1
  max: 2
  target: 1
  resources: {cpu: "3", memory: 6Gi}
  reserved: {cpu: 100m}
  stockoutError: {code: InsufficientInstanceCapacity}
`},
		{name: "empty", data: "", wantErr: "empty file"},
		{name: "no groups", data: "nodeGroups: []", wantErr: "at least one group"},
		{name: "unknown field", data: "nodeGroups:\n- name: a\n  max: 1\n  instanceTypes: [m5.large]\n  flavour: x\n", wantErr: "flavour"},
		{name: "unknown type", data: "nodeGroups:\n- name: a\n  max: 1\n  instanceTypes: [m9.huge]\n", wantErr: "line 4: nodeGroups[0] (\"a\"): instanceTypes: unknown instance type \"m9.huge\""},
		{name: "both types and resources", data: "nodeGroups:\n- name: a\n  max: 1\n  instanceTypes: [m5.large]\n  resources: {cpu: 1, memory: 1Gi}\n", wantErr: "exactly one"},
		{name: "no max", data: "nodeGroups:\n- name: a\n  instanceTypes: [m5.large]\n", wantErr: "max"},
		{name: "bad name", data: "nodeGroups:\n- name: A_B\n  max: 1\n  instanceTypes: [m5.large]\n", wantErr: "not a valid name"},
		{name: "duplicate", data: "nodeGroups:\n- {name: a, max: 1, instanceTypes: [m5.large]}\n- {name: a, max: 1, instanceTypes: [m5.large]}\n", wantErr: "defined twice"},
		{name: "target above max", data: "nodeGroups:\n- {name: a, max: 1, target: 2, instanceTypes: [m5.large]}\n", wantErr: "target"},
		{name: "fractional max", data: "nodeGroups:\n- {name: a, max: 2.5, instanceTypes: [m5.large]}\n", wantErr: "line 2: want a whole number, got 2.5"},
		{name: "min without target", groups: 1, data: "nodeGroups:\n- {name: a, min: 2, max: 3, instanceTypes: [m5.large]}\n"},
		{name: "target below min", data: "nodeGroups:\n- {name: a, min: 2, max: 3, target: 1, instanceTypes: [m5.large]}\n", wantErr: "line 2: nodeGroups[0] (\"a\"): target: 1 outside [min 2, max 3]"},
		{name: "min above max", data: "nodeGroups:\n- {name: a, min: 4, max: 3, instanceTypes: [m5.large]}\n", wantErr: "min: need 0 <= min (4) <= max (3)"},
		{name: "resources without memory", data: "nodeGroups:\n- {name: a, max: 1, resources: {cpu: 1}}\n", wantErr: "need cpu and memory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := kwok.ParseCloudConfig([]byte(tc.data))
			if tc.name == "min without target" && err == nil {
				if got := c.NodeGroups[0].InitialTarget(); got != 2 {
					t.Fatalf("initial target %d, want the min 2", got)
				}
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(c.NodeGroups) != tc.groups {
				t.Fatalf("%d groups, want %d", len(c.NodeGroups), tc.groups)
			}
		})
	}
}

// TestParseCloudConfigConfigMap passes the example ConfigMap manifest,
// as a user would by mistake: one error names the key to use.
func TestParseCloudConfigConfigMap(t *testing.T) {
	data, err := os.ReadFile("../../../deploy/node-autoscaler/cloud-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = kwok.ParseCloudConfig(data)
	if err == nil || !strings.Contains(err.Error(), `ConfigMap manifest; --cloud-config wants the content of its "cloud-config.yaml" key`) ||
		strings.Contains(err.Error(), "not found in type") {
		t.Fatalf("error %v, want one hint naming the cloud-config.yaml key", err)
	}
}

func FuzzParseCloudConfig(f *testing.F) {
	f.Add([]byte("nodeGroups:\n- {name: a, max: 1, instanceTypes: [m5.large]}\n"))
	f.Add([]byte("nodeGroups:\n- {name: a, max: 2, resources: {cpu: 1, memory: 1Gi}, capacity: unlimited, bootTime: 1m}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := kwok.ParseCloudConfig(data)
		if err == nil && len(c.NodeGroups) == 0 {
			t.Fatal("accepted a config without groups")
		}
	})
}

// TestGroupOptionsReachTheCloud: a group's autoscalingOptions in the
// cloud config are the group's options, as in a scenario's offline world.
func TestGroupOptionsReachTheCloud(t *testing.T) {
	c, err := kwok.ParseCloudConfig([]byte("nodeGroups:\n- {name: g, max: 2, resources: {cpu: \"2\", memory: 4Gi}, autoscalingOptions: {scaledownutilizationthreshold: \"0.9\", zeroormaxnodescaling: \"true\"}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := kwok.New(kwok.Config{Client: fake.NewClientset(), NodeGroups: c.NodeGroups})
	if err != nil {
		t.Fatal(err)
	}
	groups, err := p.NodeGroups(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 1 || groups[0].Options.ScaleDownUtilizationThreshold == nil || *groups[0].Options.ScaleDownUtilizationThreshold != 0.9 ||
		!groups[0].Options.ZeroOrMaxNodeScaling {
		t.Fatalf("groups = %+v, want g with scale-down utilization threshold 0.9, zero-or-max", groups)
	}
}
