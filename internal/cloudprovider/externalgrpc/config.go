package externalgrpc

import (
	"errors"
	"fmt"
	"net"
	"time"

	"sigs.k8s.io/yaml"
)

// DefaultTimeout bounds every call when the cloud config sets no
// grpc_timeout (upstream's default).
const DefaultTimeout = 5 * time.Second

// CloudConfig is the --cloud-config file of the externalgrpc provider, in
// upstream's format (YAML, snake-case keys).
type CloudConfig struct {
	// Address is the server's "host:port" (also "[host]:port" and the
	// "%zone" forms net.SplitHostPort takes).
	Address string `json:"address"`
	// Key is the client's TLS key file for mutual TLS.
	Key string `json:"key,omitempty"`
	// Cert is the client's TLS certificate file for mutual TLS; without it
	// the connection is plain text, as upstream's.
	Cert string `json:"cert,omitempty"`
	// Cacert is the file of the CA that signed the server's certificate.
	Cacert string `json:"cacert,omitempty"`
	// GRPCTimeout bounds every call, as a Go duration ("5s");
	// DefaultTimeout when empty.
	GRPCTimeout string `json:"grpc_timeout,omitempty"`
}

// ParseCloudConfig reads and validates a cloud config. Unknown keys are
// errors that name them (upstream ignores them).
func ParseCloudConfig(data []byte) (*CloudConfig, error) {
	var c CloudConfig
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return nil, fmt.Errorf("parsing the externalgrpc cloud config: %w", err)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Validate checks the address, that the TLS files come together, and the
// timeout.
func (c *CloudConfig) Validate() error {
	if c.Address == "" {
		return errors.New("address: required (host:port of the external gRPC cloud provider)")
	}
	if _, _, err := net.SplitHostPort(c.Address); err != nil {
		return fmt.Errorf("address: %w", err)
	}
	if c.Cert != "" || c.Key != "" || c.Cacert != "" {
		switch {
		case c.Cert == "":
			return errors.New("cert: required when key or cacert is set (mutual TLS needs cert, key and cacert)")
		case c.Key == "":
			return errors.New("key: required when cert is set (mutual TLS needs cert, key and cacert)")
		case c.Cacert == "":
			return errors.New("cacert: required when cert is set (mutual TLS needs cert, key and cacert)")
		}
	}
	if c.GRPCTimeout != "" {
		d, err := time.ParseDuration(c.GRPCTimeout)
		switch {
		case err != nil:
			return fmt.Errorf("grpc_timeout: %w", err)
		case d <= 0:
			return fmt.Errorf("grpc_timeout: must be positive, got %s", d)
		}
	}
	return nil
}

// Timeout is the bound of every call (DefaultTimeout when unset or, in a
// config Validate rejects, invalid).
func (c *CloudConfig) Timeout() time.Duration {
	d, err := time.ParseDuration(c.GRPCTimeout)
	if err != nil || d <= 0 {
		return DefaultTimeout
	}
	return d
}
