package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	coordinationv1 "k8s.io/api/coordination/v1"

	"github.com/kscale/kscale/internal/vpa/admission"
	"github.com/kscale/kscale/internal/vpa/target"
)

// vpaAdmissionOptions are the flags of `kscale vpa-admission`.
type vpaAdmissionOptions struct {
	cfg         admission.Config
	client      vpaClientFlags
	webhookAddr string
	webhookPort string
	ciphers     string
	labels      string
}

// newVPAAdmissionCommand builds `kscale vpa-admission`.
func newVPAAdmissionCommand() *cobra.Command {
	return newComponentCommand("vpa-admission", "Serve the VerticalPodAutoscaler admission webhook: pod requests at creation, VPA validation", &vpaAdmissionOptions{})
}

// addFlags registers every flag with the upstream name and default.
func (o *vpaAdmissionOptions) addFlags(fs *pflag.FlagSet) {
	d := admission.DefaultConfig()
	c := &o.cfg
	fs.IntVar(&c.Port, "port", d.Port, "HTTPS port of the webhook.")
	fs.StringVar(&c.CertFile, "tls-cert-file", "", "Serving certificate (PEM).")
	fs.StringVar(&c.KeyFile, "tls-private-key", "", "Serving certificate's private key (PEM).")
	fs.StringVar(&c.CAFile, "client-ca-file", "", "CA (PEM) that signed the serving certificate; registered as the webhook's caBundle.")
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
	fs.DurationVar(&c.StatusLeaseInterval, "status-lease-update-interval", d.StatusLeaseInterval, "How often the status Lease (read by the updater) is renewed.")
	o.client.add(fs, ":8944")
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
	for _, f := range []struct{ flag, path string }{
		{"--tls-cert-file", o.cfg.CertFile}, {"--tls-private-key", o.cfg.KeyFile}, {"--client-ca-file", o.cfg.CAFile},
	} {
		if err := validateFile(f.flag, f.path); err != nil {
			return err
		}
	}
	o.cfg.ServicePort = 443
	o.cfg.Namespace = o.client.namespace
	o.cfg.VPAObjectNamespace = o.client.only
	o.cfg.IgnoredNamespaces = o.client.ignoredNamespaces()
	if o.cfg.RegisterByURL {
		if o.webhookAddr == "" || o.webhookPort == "" {
			return errors.New("--register-by-url: --webhook-address and --webhook-port are required")
		}
		o.cfg.WebhookURL = "https://" + net.JoinHostPort(o.webhookAddr, o.webhookPort) + "/"
	}
	return o.cfg.Validate()
}

// run serves the webhook until ctx ends or a signal arrives. Every replica
// serves; there is no leader election.
func (o *vpaAdmissionOptions) run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := o.client.restConfig("kscale-vpa-admission")
	if err != nil {
		return err
	}
	scheme, err := vpaScheme()
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cfg, manager.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		// The status Lease and the webhook configuration are read fresh,
		// not through a cluster-wide cache (and RBAC for watching them).
		Client: client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{
			&coordinationv1.Lease{}, &admissionregistrationv1.MutatingWebhookConfiguration{},
		}}},
	})
	if err != nil {
		return fmt.Errorf("creating the controller manager: %w", err)
	}
	reg := newProcessRegistry()
	// Pod owners are read directly, not from a cache: a ReplicaSet creates
	// its first pods right after it is created, and a cache that has not
	// seen it yet would leave those pods unmatched.
	direct, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return fmt.Errorf("creating the API client: %w", err)
	}
	srv, err := admission.New(o.cfg, admission.Deps{
		Client: mgr.GetClient(), Resolver: target.NewResolver(direct),
		Registerer: reg, Clock: clock.RealClock{}, Identity: identity(),
	})
	if err != nil {
		return err
	}
	if err := mgr.Add(notLeading{manager.RunnableFunc(srv.Run)}); err != nil {
		return fmt.Errorf("adding the webhook server: %w", err)
	}
	if err := mgr.Add(notLeading{metricsRunnable(o.client.address, reg)}); err != nil {
		return fmt.Errorf("adding the metrics server: %w", err)
	}
	klog.FromContext(ctx).Info("Starting the VPA admission webhook", "port", o.cfg.Port, "failurePolicyFail", o.cfg.FailurePolicyFail)
	return mgr.Start(ctx)
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
