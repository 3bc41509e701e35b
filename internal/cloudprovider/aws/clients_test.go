package aws_test

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kscale/kscale/internal/cloudprovider/aws"
)

func TestNewClientsNeedsARegion(t *testing.T) {
	for k, v := range map[string]string{"AWS_REGION": "", "AWS_DEFAULT_REGION": "", "AWS_CONFIG_FILE": "/dev/null",
		"AWS_SHARED_CREDENTIALS_FILE": "/dev/null", "AWS_PROFILE": ""} {
		t.Setenv(k, v)
	}
	if _, err := aws.NewClients(t.Context(), aws.ClientConfig{}); err == nil || !strings.Contains(err.Error(), "AWS_REGION") {
		t.Fatalf("error %v, want one naming AWS_REGION", err)
	}
	t.Setenv("AWS_REGION", "eu-west-1")
	reg := prometheus.NewRegistry()
	c, err := aws.NewClients(t.Context(), aws.ClientConfig{Registerer: reg})
	if err != nil || c.Region != "eu-west-1" {
		t.Fatalf("clients %+v, %v", c, err)
	}
	// A second leader term in the same process registers the metrics again.
	if _, err := aws.NewClients(t.Context(), aws.ClientConfig{Registerer: reg}); err != nil {
		t.Fatalf("second registration: %v", err)
	}
}

func TestConfigValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  aws.Config
		want string
	}{
		{name: "no clients", cfg: aws.Config{Region: "r"}, want: "autoScaling"},
		{name: "no groups", cfg: aws.Config{AutoScaling: fakeAPI{}, EC2: fakeAPI{}, EKS: fakeAPI{}, Region: "r"}, want: "no node groups"},
		{name: "no region", cfg: aws.Config{AutoScaling: fakeAPI{}, EC2: fakeAPI{}, EKS: fakeAPI{}, Discovery: []aws.Discovery{{}}}, want: "region"},
		{name: "no EKS client", cfg: aws.Config{AutoScaling: fakeAPI{}, EC2: fakeAPI{}, Region: "r", Discovery: []aws.Discovery{{}}}, want: "eks"},
		{name: "negative EKS cache", cfg: aws.Config{AutoScaling: fakeAPI{}, EC2: fakeAPI{}, EKS: fakeAPI{}, Region: "r", Discovery: []aws.Discovery{{}},
			EKSCacheTTL: -1}, want: "eksCacheTTL"},
		{name: "negative interval", cfg: aws.Config{AutoScaling: fakeAPI{}, EC2: fakeAPI{}, EKS: fakeAPI{}, Region: "r", Discovery: []aws.Discovery{{}}, RefreshInterval: -1},
			want: "refreshInterval"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := aws.New(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one naming %s", err, tc.want)
			}
		})
	}
}

// fakeAPI satisfies the API interfaces for validation tests; it is never
// called.
type fakeAPI struct {
	aws.AutoScalingAPI
	aws.EC2API
	aws.EKSAPI
}
