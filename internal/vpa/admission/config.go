package admission

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kscale/kscale/internal/vpa/features"
)

// Defaults of the admission webhook settings, equal to upstream VPA.
const (
	DefaultPort                = 8000
	DefaultTimeoutSeconds      = 30
	DefaultServiceName         = "vpa-webhook"
	DefaultConfigurationName   = "vpa-webhook-config"
	DefaultWebhookName         = "vpa.k8s.io"
	DefaultStatusLeaseInterval = 10 * time.Second
	DefaultNamespace           = "kube-system"
	DefaultMinTLSVersion       = "tls1_2"
	// StatusLeaseName is the Lease the webhook renews while it serves.
	StatusLeaseName = "vpa-admission-controller"
)

// Config holds the webhook settings.
type Config struct {
	// Port is the HTTPS port; --port.
	Port int
	// CertFile and KeyFile are the serving certificate and key; --tls-cert-file, --tls-private-key.
	CertFile, KeyFile string
	// CAFile is the CA that signed the serving certificate, put into the
	// webhook's caBundle; --client-ca-file.
	CAFile string
	// ReloadCert re-reads the serving certificate and key when the files
	// change; --reload-cert.
	ReloadCert bool
	// SelfSignedSecret, when set, is the Secret of certificates that manage
	// themselves (Deps.Certificates), instead of the files;
	// --self-signed-cert-secret.
	SelfSignedSecret string
	// MinTLSVersion is tls1_2 or tls1_3; --min-tls-version.
	MinTLSVersion string
	// CipherSuites restricts the TLS 1.2 cipher suites (nil: Go's
	// defaults); --tls-ciphers.
	CipherSuites []uint16
	// WebhookLabels are put on the MutatingWebhookConfiguration; --webhook-labels.
	WebhookLabels map[string]string
	// RegisterWebhook creates the MutatingWebhookConfiguration; --register-webhook.
	RegisterWebhook bool
	// RegisterByURL registers WebhookURL instead of a Service; --register-by-url.
	RegisterByURL bool
	// WebhookURL is the https URL the API server calls with RegisterByURL;
	// --webhook-address and --webhook-port form it.
	WebhookURL string
	// ServiceName is the webhook's Service in Namespace; --webhook-service.
	ServiceName string
	// ServicePort is the Service port; --webhook-service-port.
	ServicePort int32
	// Namespace holds the Service and the status Lease ($NAMESPACE).
	Namespace string
	// StatusLease names the status Lease (--status-lease-name); default
	// StatusLeaseName.
	StatusLease string
	// StatusLeaseNamespace holds it (--status-lease-namespace); default
	// Namespace.
	StatusLeaseNamespace string
	// ConfigurationName names the MutatingWebhookConfiguration; --webhook-config-name.
	ConfigurationName string
	// FailurePolicyFail sets failurePolicy Fail instead of Ignore; --webhook-failure-policy-fail.
	FailurePolicyFail bool
	// TimeoutSeconds is the webhook timeout; --webhook-timeout-seconds.
	TimeoutSeconds int32
	// IgnoredNamespaces are excluded by the namespaceSelector; --ignored-vpa-object-namespaces.
	IgnoredNamespaces []string
	// VPAObjectNamespace, when set, is the only namespace served; --vpa-object-namespace.
	VPAObjectNamespace string
	// StatusLeaseInterval is how often the status Lease is renewed; --status-lease-update-interval.
	StatusLeaseInterval time.Duration
	// Features are the VPA feature gates that are on; --feature-gates.
	Features features.Gates
	// MaxAllowedCPUBoost caps a CPU request raised by a startup boost (zero:
	// no cap); --max-allowed-cpu-boost.
	MaxAllowedCPUBoost resource.Quantity
}

// DefaultConfig returns a Config with the upstream defaults.
func DefaultConfig() Config {
	return Config{
		Port: DefaultPort, MinTLSVersion: DefaultMinTLSVersion, RegisterWebhook: true,
		ServiceName: DefaultServiceName, ServicePort: 443, Namespace: DefaultNamespace,
		ConfigurationName: DefaultConfigurationName, TimeoutSeconds: DefaultTimeoutSeconds,
		StatusLeaseInterval: DefaultStatusLeaseInterval, StatusLease: StatusLeaseName,
	}
}

// Validate reports every invalid setting, naming its flag.
func (c *Config) Validate() error {
	var errs []error
	if c.Port < 0 || c.Port > 65535 {
		errs = append(errs, fmt.Errorf("--port: must be within [0, 65535], got %d", c.Port))
	}
	if c.MaxAllowedCPUBoost.Sign() < 0 {
		errs = append(errs, fmt.Errorf("--max-allowed-cpu-boost: must not be negative, got %s", c.MaxAllowedCPUBoost.String()))
	}
	errs = append(errs, c.validateCertSource()...)
	if _, err := tlsVersion(c.MinTLSVersion); err != nil {
		errs = append(errs, err)
	}
	if c.TimeoutSeconds < 1 || c.TimeoutSeconds > 30 {
		errs = append(errs, fmt.Errorf("--webhook-timeout-seconds: must be within [1, 30], got %d", c.TimeoutSeconds))
	}
	if c.StatusLeaseInterval <= 0 {
		errs = append(errs, fmt.Errorf("--status-lease-update-interval: must be positive, got %s", c.StatusLeaseInterval))
	}
	if c.RegisterWebhook {
		errs = append(errs, c.validateRegistration()...)
	}
	if c.VPAObjectNamespace != "" && len(c.IgnoredNamespaces) > 0 {
		errs = append(errs, errors.New("--vpa-object-namespace and --ignored-vpa-object-namespaces: set at most one"))
	}
	return errors.Join(errs...)
}

// validateCertSource requires either the certificate files or the
// self-signed Secret, not both.
func (c *Config) validateCertSource() []error {
	if c.SelfSignedSecret != "" {
		if c.CertFile != "" || c.KeyFile != "" || c.CAFile != "" {
			return []error{errors.New("--self-signed-cert-secret: excludes --tls-cert-file, --tls-private-key and --client-ca-file")}
		}
		return nil
	}
	if c.CertFile == "" || c.KeyFile == "" {
		return []error{errors.New("--tls-cert-file and --tls-private-key: both are required (or --self-signed-cert-secret)")}
	}
	return nil
}

func (c *Config) validateRegistration() []error {
	var errs []error
	if c.CAFile == "" && c.SelfSignedSecret == "" {
		errs = append(errs, errors.New("--client-ca-file: required to register the webhook (it becomes the caBundle)"))
	}
	if c.RegisterByURL {
		u, err := url.Parse(c.WebhookURL)
		if err != nil || u.Scheme != "https" || u.Host == "" {
			errs = append(errs, fmt.Errorf("--webhook-address: must form an https URL with a host, got %q", c.WebhookURL))
		}
	} else if c.ServiceName == "" || c.Namespace == "" {
		errs = append(errs, errors.New("--webhook-service and the namespace: both are required to register by Service"))
	}
	return errs
}

func tlsVersion(s string) (uint16, error) {
	switch s {
	case "tls1_2":
		return tls.VersionTLS12, nil
	case "tls1_3":
		return tls.VersionTLS13, nil
	default:
		return 0, fmt.Errorf("--min-tls-version: must be tls1_2 or tls1_3, got %q", s)
	}
}

// ParseCipherSuites parses a comma- or colon-separated list of Go cipher
// suite names (as tls.CipherSuites lists them); insecure suites are refused.
func ParseCipherSuites(s string) ([]uint16, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	known := map[string]uint16{}
	for _, c := range tls.CipherSuites() {
		known[c.Name] = c.ID
	}
	var out []uint16
	for _, name := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ':' }) {
		name = strings.TrimSpace(name)
		id, ok := known[name]
		if !ok {
			return nil, fmt.Errorf("--tls-ciphers: unknown or insecure cipher suite %q", name)
		}
		out = append(out, id)
	}
	return out, nil
}

// ParseLabels parses "key1:value1,key2:value2".
func ParseLabels(s string) (map[string]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	out := map[string]string{}
	for _, pair := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(pair), ":")
		if !ok || k == "" {
			return nil, fmt.Errorf("--webhook-labels: %q is not key:value", pair)
		}
		out[k] = v
	}
	return out, nil
}
