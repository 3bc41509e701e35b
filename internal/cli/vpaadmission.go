package cli

import (
	"context"
	"errors"
	"net"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/operator"
	"github.com/kscale/kscale/internal/vpa/admission"
)

// vpaAdmissionOptions are the flags of `kscale vpa-admission`.
type vpaAdmissionOptions struct {
	cfg         admission.Config
	client      vpaClientFlags
	webhookAddr string
	webhookPort string
	ciphers     string
	labels      string
	cmn         commonFlags
	selfSigned  selfSignedFlags
	maxBoost    resource.QuantityValue
	fs          *pflag.FlagSet
}

func (o *vpaAdmissionOptions) common() *commonFlags { return &o.cmn }

// newVPAAdmissionCommand builds `kscale vpa-admission`.
func newVPAAdmissionCommand() *cobra.Command {
	return newComponentCommand("vpa-admission", "Serve the VerticalPodAutoscaler admission webhook: pod requests at creation, VPA validation", &vpaAdmissionOptions{}, vpaCommonSpec)
}

// addFlags registers every flag with the upstream name and default.
func (o *vpaAdmissionOptions) addFlags(fs *pflag.FlagSet) {
	d := admission.DefaultConfig()
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
	fs.StringVar(&c.StatusLease, "status-lease-name", admission.StatusLeaseName, "Name of the status Lease the updater reads.")
	fs.StringVar(&c.StatusLeaseNamespace, "status-lease-namespace", "", "Namespace of the status Lease (default --namespace).")
	fs.DurationVar(&c.StatusLeaseInterval, "status-lease-update-interval", d.StatusLeaseInterval, "How often the status Lease (read by the updater) is renewed.")
	fs.Var(&o.maxBoost, "max-allowed-cpu-boost", "Largest CPU request a startup boost may give a container (0 = no cap; needs --feature-gates=CPUStartupBoost=true).")
	o.client.add(fs, ":8944")
	o.selfSigned.add(fs, "--tls-cert-file, --tls-private-key and --client-ca-file")
	o.fs = fs
}

// complete validates the flags and fills the derived settings.
func (o *vpaAdmissionOptions) complete() error {
	if err := o.client.validate(); err != nil {
		return err
	}
	var err error
	if o.cfg.CipherSuites, err = admission.ParseCipherSuites(o.ciphers); err != nil {
		return err
	}
	if o.cfg.WebhookLabels, err = admission.ParseLabels(o.labels); err != nil {
		return err
	}
	o.cfg.ServicePort = 443
	o.cfg.Features = o.cmn.vpaGates()
	o.cfg.MaxAllowedCPUBoost = o.maxBoost.Quantity
	o.cfg.Namespace = o.client.namespace
	if o.cfg.StatusLeaseNamespace == "" {
		o.cfg.StatusLeaseNamespace = o.client.namespace
	}
	if o.cfg.StatusLease == "" {
		return errors.New("--status-lease-name: must not be empty")
	}
	o.cfg.VPAObjectNamespace = o.client.only
	o.cfg.IgnoredNamespaces = o.client.ignoredNamespaces()
	if o.cfg.RegisterByURL {
		if o.webhookAddr == "" || o.webhookPort == "" {
			return errors.New("--register-by-url: --webhook-address and --webhook-port are required")
		}
		o.cfg.WebhookURL = "https://" + net.JoinHostPort(o.webhookAddr, o.webhookPort) + "/"
	}
	o.cfg.SelfSignedSecret = o.selfSigned.secret
	if o.selfSigned.enabled() {
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
	if !o.selfSigned.enabled() {
		// The certificate files are read at start: a missing one is a
		// usage error naming its flag, not a failure later.
		for _, f := range []struct{ flag, path string }{
			{"--tls-cert-file", o.cfg.CertFile}, {"--tls-private-key", o.cfg.KeyFile}, {"--client-ca-file", o.cfg.CAFile},
		} {
			if err := validateFile(f.flag, f.path); err != nil {
				return err
			}
		}
		return nil
	}
	dns, ips := o.servingNames()
	return o.selfSigned.validate(o.cfg.Namespace, "vpa-admission", dns, ips)
}

// servingNames are the names the API server calls the webhook by: the
// --webhook-address host with --register-by-url, else the Service's.
func (o *vpaAdmissionOptions) servingNames() ([]string, []net.IP) {
	if o.cfg.RegisterByURL {
		return hostSANs(o.webhookAddr)
	}
	return serviceDNSNames(o.cfg.ServiceName, o.cfg.Namespace), nil
}

// run serves the webhook through the host until ctx ends or a signal
// arrives. Every replica serves; there is no leader election.
func (o *vpaAdmissionOptions) run(ctx context.Context) error {
	cfg, err := o.client.restConfig("kscale-vpa-admission")
	if err != nil {
		return err
	}
	reg := newProcessRegistry()
	cc := admission.ComponentConfig{Config: o.cfg, RESTConfig: cfg, Registerer: reg, Identity: identity()}
	if o.selfSigned.enabled() {
		dns, ips := o.servingNames()
		sc := o.selfSigned.config(nil, o.cfg.Namespace, "vpa-admission", dns, ips)
		cc.SelfSigned = &sc
	}
	comp, err := admission.NewComponent(cc)
	if err != nil {
		return err
	}
	klog.FromContext(ctx).Info("Starting the VPA admission webhook", "port", o.cfg.Port, "failurePolicyFail", o.cfg.FailurePolicyFail)
	return operator.Run(ctx, operator.Config{Addresses: []operator.Address{{Flag: "address", Address: o.client.address}}, Gatherer: reg,
		Profiling: o.cmn.profiling}, comp)
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
