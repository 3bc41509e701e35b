package admission

import (
	"context"
	"errors"
	"net"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/componentflags"
	"github.com/kscale/kscale/internal/operator"
	"github.com/kscale/kscale/internal/selfcert"
	"github.com/kscale/kscale/internal/vpa/features"
	"github.com/kscale/kscale/internal/vpa/vpaflags"
)

// Flags are the command-line flags of the webhook, with upstream's names
// and defaults, and their conversion into a ComponentConfig.
type Flags struct {
	cfg         Config
	client      vpaflags.Client
	webhookAddr string
	webhookPort string
	ciphers     string
	labels      string
	selfSigned  selfcert.Flags
	maxBoost    resource.QuantityValue
	fs          *pflag.FlagSet
}

// AddFlags registers every flag with the upstream name and default.
func (o *Flags) AddFlags(fs *pflag.FlagSet) {
	d := DefaultConfig()
	c := &o.cfg
	fs.IntVar(&c.Port, "port", d.Port, "HTTPS port of the webhook.")
	fs.StringVar(&c.CertFile, "tls-cert-file", "/etc/tls-certs/serverCert.pem", "Serving certificate (PEM).")
	fs.StringVar(&c.KeyFile, "tls-private-key", "/etc/tls-certs/serverKey.pem", "Serving certificate's private key (PEM).")
	fs.StringVar(&c.CAFile, "client-ca-file", "/etc/tls-certs/caCert.pem", "CA (PEM) that signed the serving certificate; registered as the webhook's caBundle.")
	fs.BoolVar(&c.ReloadCert, "reload-cert", false, "Reload the serving certificate and key when the files change.")
	fs.StringVar(&c.MinTLSVersion, "min-tls-version", d.MinTLSVersion, "Least TLS version accepted: tls1_2 or tls1_3.")
	fs.StringVar(&o.ciphers, "tls-ciphers", "", "Comma- or colon-separated TLS 1.2 cipher suites (Go names); empty = Go's secure defaults.")
	fs.StringVar(&o.labels, "webhook-labels", "", "Labels of the MutatingWebhookConfiguration, as key1:value1,key2:value2.")
	fs.BoolVar(&c.RegisterWebhook, "register-webhook", d.RegisterWebhook, "Create the MutatingWebhookConfiguration at start-up (replacing one of the same name).")
	fs.BoolVar(&c.RegisterByURL, "register-by-url", false, "Register https://<webhook-address>:<webhook-port> instead of the Service.")
	fs.StringVar(&o.webhookAddr, "webhook-address", "", "Host the API server calls with --register-by-url.")
	fs.StringVar(&o.webhookPort, "webhook-port", "", "Port the API server calls with --register-by-url.")
	fs.StringVar(&c.ServiceName, "webhook-service", d.ServiceName, "Service of the webhook in --namespace (port 443).")
	fs.StringVar(&c.ConfigurationName, "webhook-config-name", d.ConfigurationName, "Name of the MutatingWebhookConfiguration.")
	fs.BoolVar(&c.FailurePolicyFail, "webhook-failure-policy-fail", false, "Register failurePolicy Fail instead of Ignore.")
	fs.Int32Var(&c.TimeoutSeconds, "webhook-timeout-seconds", d.TimeoutSeconds, "How long the API server waits for the webhook.")
	fs.StringVar(&c.StatusLease, "status-lease-name", StatusLeaseName, "Name of the status Lease the updater reads.")
	fs.StringVar(&c.StatusLeaseNamespace, "status-lease-namespace", "", "Namespace of the status Lease (default --namespace).")
	fs.DurationVar(&c.StatusLeaseInterval, "status-lease-update-interval", d.StatusLeaseInterval, "How often the status Lease (read by the updater) is renewed.")
	fs.Var(&o.maxBoost, "max-allowed-cpu-boost", "Largest CPU request a startup boost may give a container (0 = no cap; needs --feature-gates=CPUStartupBoost=true).")
	o.client.AddFlags(fs, ":8944")
	o.selfSigned.AddFlags(fs, "--tls-cert-file, --tls-private-key and --client-ca-file")
	o.fs = fs
}

// SetFeatures sets the VPA feature gates the command line turned on.
func (o *Flags) SetFeatures(g features.Gates) { o.cfg.Features = g }

// Config returns the webhook's configuration, complete after Complete.
func (o *Flags) Config() Config { return o.cfg }

// Complete validates the flags and fills the derived settings; its errors
// name the flag.
func (o *Flags) Complete() error {
	if err := o.client.Validate(); err != nil {
		return err
	}
	var err error
	if o.cfg.CipherSuites, err = ParseCipherSuites(o.ciphers); err != nil {
		return err
	}
	if o.cfg.WebhookLabels, err = ParseLabels(o.labels); err != nil {
		return err
	}
	o.cfg.ServicePort = 443
	o.cfg.MaxAllowedCPUBoost = o.maxBoost.Quantity
	o.cfg.Namespace = o.client.Namespace
	if o.cfg.StatusLeaseNamespace == "" {
		o.cfg.StatusLeaseNamespace = o.client.Namespace
	}
	if o.cfg.StatusLease == "" {
		return errors.New("--status-lease-name: must not be empty")
	}
	o.cfg.VPAObjectNamespace = o.client.Only
	o.cfg.IgnoredNamespaces = o.client.IgnoredNamespaces()
	if o.cfg.RegisterByURL {
		if o.webhookAddr == "" || o.webhookPort == "" {
			return errors.New("--register-by-url: --webhook-address and --webhook-port are required")
		}
		o.cfg.WebhookURL = "https://" + net.JoinHostPort(o.webhookAddr, o.webhookPort) + "/"
	}
	o.cfg.SelfSignedSecret = o.selfSigned.Secret
	if o.selfSigned.Enabled() {
		// The certificate flags' defaults are upstream's paths; only
		// values the user wrote conflict with self-signed certificates.
		for flag, v := range map[string]*string{"tls-cert-file": &o.cfg.CertFile, "tls-private-key": &o.cfg.KeyFile, "client-ca-file": &o.cfg.CAFile} {
			if !o.fs.Changed(flag) {
				*v = ""
			}
		}
	}
	if err := o.cfg.Validate(); err != nil {
		return err
	}
	return o.completeCerts()
}

// completeCerts checks the certificate files, or the self-signed
// certificate's settings.
func (o *Flags) completeCerts() error {
	if !o.selfSigned.Enabled() {
		// The certificate files are read at start: a missing one is a
		// usage error naming its flag, not a failure later.
		for _, f := range []struct{ flag, path string }{
			{"--tls-cert-file", o.cfg.CertFile}, {"--tls-private-key", o.cfg.KeyFile}, {"--client-ca-file", o.cfg.CAFile},
		} {
			if err := componentflags.ValidateFile(f.flag, f.path); err != nil {
				return err
			}
		}
		return nil
	}
	dns, ips := o.servingNames()
	return o.selfSigned.Config(nil, o.cfg.Namespace, "vpa-admission", dns, ips).Validate()
}

// servingNames are the names the API server calls the webhook by: the
// --webhook-address host with --register-by-url, else the Service's.
func (o *Flags) servingNames() ([]string, []net.IP) {
	if o.cfg.RegisterByURL {
		return selfcert.HostSANs(o.webhookAddr)
	}
	return selfcert.ServiceDNSNames(o.cfg.ServiceName, o.cfg.Namespace), nil
}

// Host builds the webhook from the completed flags and returns it with the
// host's settings. Every replica serves; there is no leader election. reg
// takes its metrics.
func (o *Flags) Host(ctx context.Context, reg prometheus.Registerer) (operator.Component, operator.Config, error) {
	cfg, err := o.client.RESTConfig("kscale-vpa-admission")
	if err != nil {
		return operator.Component{}, operator.Config{}, err
	}
	cc := ComponentConfig{Config: o.cfg, RESTConfig: cfg, Registerer: reg, Identity: identity()}
	if o.selfSigned.Enabled() {
		dns, ips := o.servingNames()
		sc := o.selfSigned.Config(nil, o.cfg.Namespace, "vpa-admission", dns, ips)
		cc.SelfSigned = &sc
	}
	comp, err := NewComponent(cc)
	if err != nil {
		return operator.Component{}, operator.Config{}, err
	}
	klog.FromContext(ctx).Info("Starting the VPA admission webhook", "port", o.cfg.Port, "failurePolicyFail", o.cfg.FailurePolicyFail)
	return comp, operator.Config{Addresses: []operator.Address{{Flag: "address", Address: o.client.Address}}}, nil
}

// identity names this replica in the status Lease: $POD_NAME, else the host name.
func identity() string {
	if name := os.Getenv("POD_NAME"); name != "" {
		return name
	}
	if host, err := os.Hostname(); err == nil {
		return host
	}
	return "kscale-vpa-admission"
}
