package entrypoint

import (
	"slices"
	"testing"
)

func TestArgs(t *testing.T) {
	tests := []struct {
		name string
		argv []string
		want []string
	}{
		{"kscale itself", []string{"/kscale", "version"}, []string{"version"}},
		{"kscale by relative path", []string{"./kscale", "node-autoscaler", "--v=4"}, []string{"node-autoscaler", "--v=4"}},
		{"CA command list in WORKDIR /", []string{"./cluster-autoscaler", "--cloud-provider=kwok"}, []string{"node-autoscaler", "--cloud-provider=kwok"}},
		{"CA absolute", []string{"/cluster-autoscaler"}, []string{"node-autoscaler"}},
		{"VPA recommender entrypoint", []string{"/recommender", "--recommender-interval=1m"}, []string{"vpa-recommender", "--recommender-interval=1m"}},
		{"VPA updater entrypoint", []string{"/updater"}, []string{"vpa-updater"}},
		{"VPA admission entrypoint", []string{"/admission-controller", "--reload-cert"}, []string{"vpa-admission", "--reload-cert"}},
		{"gardener custom metrics", []string{"/gardener-custom-metrics", "--secure-port=6443"}, []string{"custom-metrics", "--secure-port=6443"}},
		{"gardener custom metrics as path", []string{"./gardener-custom-metrics"}, []string{"custom-metrics"}},
		{"args are never rewritten", []string{"/updater", "recommender", "--x"}, []string{"vpa-updater", "recommender", "--x"}},
		{"unknown name", []string{"/usr/local/bin/kscale-linux-amd64", "simulate", "f.yaml"}, []string{"simulate", "f.yaml"}},
		{"a suffix is not a match", []string{"/cluster-autoscaler-v2"}, []string{}},
		{"empty argv", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Args(tt.argv); !slices.Equal(got, tt.want) {
				t.Errorf("Args(%q) = %q, want %q", tt.argv, got, tt.want)
			}
		})
	}
}

func TestNames(t *testing.T) {
	want := []string{"admission-controller", "cluster-autoscaler", "gardener-custom-metrics", "recommender", "updater"}
	if got := Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
	for _, n := range want {
		if _, ok := Subcommand(n); !ok {
			t.Errorf("Subcommand(%q) not found", n)
		}
	}
}
