package clusterapi

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kscale/kscale/internal/cloudprovider/optionstest"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
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
		{name: "maxnodestartuptime", ann: map[string]string{p + "maxnodestartuptime": "5m"}},
		{name: "unknown key", ann: map[string]string{p + "scaledownsoon": "5m"},
			invalid: []string{`option "scaledownsoon" is not supported here`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &scalable{kind: machineDeploymentK, namespace: "ns", name: "md", annotations: tc.ann}
			o, invalid := r.options(n)
			if !optionstest.Valid(t, o, invalid, tc.invalid) {
				return
			}
			optionstest.Duration(t, "unneeded time", o.ScaleDownUnneededTime, tc.unneed)
		})
	}
}

func TestReportIgnoredOnce(t *testing.T) {
	var lines []string
	ctx := logr.NewContext(context.Background(), funcr.New(func(_, args string) { lines = append(lines, args) }, funcr.Options{}))
	p := &Provider{ignored: map[string]bool{}}
	r := &scalable{kind: machineDeploymentK, namespace: "ns", name: "gpu", annotations: map[string]string{DRADriverAnnotation: "gpu.example.com", GPUCountAnnotation: "2"}}
	plain := &scalable{kind: machineDeploymentK, namespace: "ns", name: "plain", annotations: map[string]string{GPUCountAnnotation: "2"}}
	for range 3 {
		p.reportIgnored(ctx, r)
		p.reportIgnored(ctx, plain)
	}
	if len(lines) != 1 || !strings.Contains(lines[0], DRADriverAnnotation) || !strings.Contains(lines[0], "MachineDeployment/ns/gpu") {
		t.Fatalf("log lines %q, want one naming the DRA annotation and the group", lines)
	}
}
