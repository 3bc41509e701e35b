package componentflags

import (
	"fmt"
	"math"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Client are the Kubernetes API client flags every component has.
type Client struct {
	// Kubeconfig is --kubeconfig; empty uses the in-cluster configuration.
	Kubeconfig string
	// QPS and Burst are the client's rate limits.
	QPS   float64
	Burst int
	spec  ClientSpec
}

// ClientSpec names a component's client flags and their defaults; the
// names follow the upstream component each one replaces.
type ClientSpec struct {
	// QPSFlag and BurstFlag name the rate limit flags.
	QPSFlag, BurstFlag string
	// QPS and Burst are their defaults.
	QPS   float64
	Burst int
	// KubeconfigUsage is the help of --kubeconfig; empty: the usual text.
	KubeconfigUsage string
}

// AddFlags registers --kubeconfig and the rate limit flags on fs.
func (f *Client) AddFlags(fs *pflag.FlagSet, spec ClientSpec) {
	if spec.KubeconfigUsage == "" {
		spec.KubeconfigUsage = "Path to a kubeconfig; empty uses the in-cluster configuration."
	}
	f.spec = spec
	fs.StringVar(&f.Kubeconfig, "kubeconfig", "", spec.KubeconfigUsage)
	fs.Float64Var(&f.QPS, spec.QPSFlag, spec.QPS, "QPS limit of the Kubernetes API client.")
	fs.IntVar(&f.Burst, spec.BurstFlag, spec.Burst, "Burst limit of the Kubernetes API client.")
}

// Validate rejects limits that would stall the client and a kubeconfig
// that does not exist.
func (f *Client) Validate() error {
	if err := ValidateLimits("--"+f.spec.QPSFlag, "--"+f.spec.BurstFlag, f.QPS, f.Burst); err != nil {
		return err
	}
	return ValidateFile("--kubeconfig", f.Kubeconfig)
}

// ValidateLimits rejects client rate limits that would stall the client.
func ValidateLimits(qpsFlag, burstFlag string, qps float64, burst int) error {
	if !(qps > 0) || math.IsInf(qps, 0) || burst <= 0 {
		return fmt.Errorf("%s and %s: must be positive, got %g and %d", qpsFlag, burstFlag, qps, burst)
	}
	return nil
}

// RESTConfig loads the client configuration from --kubeconfig, or the
// in-cluster configuration without it, with the flags' limits.
func (f *Client) RESTConfig(userAgent string) (*rest.Config, error) {
	cfg, err := LoadRESTConfig(f.Kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst, cfg.UserAgent = float32(f.QPS), f.Burst, userAgent
	return cfg, nil
}

// LoadRESTConfig loads the client configuration from kubeconfig, or the
// in-cluster configuration when it is empty.
func LoadRESTConfig(kubeconfig string) (*rest.Config, error) {
	var cfg *rest.Config
	var err error
	if kubeconfig != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", kubeconfig)
	} else {
		cfg, err = rest.InClusterConfig()
	}
	if err != nil {
		return nil, fmt.Errorf("loading the Kubernetes client configuration: %w", err)
	}
	return cfg, nil
}
