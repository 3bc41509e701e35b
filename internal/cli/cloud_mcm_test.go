package cli

import (
	"strings"
	"testing"
)

func TestMCMBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{args: []string{"--cloud-provider=mcm"}, want: "--nodes: --cloud-provider=mcm needs at least one"},
		{args: []string{"--cloud-provider=mcm", "--nodes=1:3:md"}, want: "<namespace>.<machinedeployment>"},
		{args: []string{"--cloud-provider=mcm", "--nodes=1:3:other.md"}, env: map[string]string{"CONTROL_NAMESPACE": "shoot--p--c"}, want: "CONTROL_NAMESPACE"},
		{args: []string{"--cloud-provider=mcm", "--nodes=1:3:ns.md", "--node-group-auto-discovery=mcm:x"}, want: "--node-group-auto-discovery: not supported"},
		{args: []string{"--cloud-provider=mcm", "--nodes=1:3:ns.md", "--cloud-config=x"}, want: "--cloud-config: --cloud-provider=mcm reads no cloud config"},
		{args: []string{"--cloud-provider=mcm", "--nodes=1:3:ns.md", "--control-apiserver-qps=0"}, want: "--control-apiserver-qps: must be positive"},
		{args: []string{"--cloud-provider=kwok", "--control-apiserver-burst=20"}, want: "only for --cloud-provider=mcm"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			expectUsageError(t, newNodeAutoscalerCommand(), tt.args, tt.want)
		})
	}
}
