package cli

import (
	"net"
	"time"

	"github.com/spf13/pflag"

	"github.com/kscale/kscale/internal/selfcert"
)

// selfSignedFlags are the flags of certificates that manage themselves,
// the same for every component that serves the API server (kscale-only:
// upstream has no equivalent).
type selfSignedFlags struct {
	secret       string
	certValidity time.Duration
	caValidity   time.Duration
	syncPeriod   time.Duration
}

func (f *selfSignedFlags) add(fs *pflag.FlagSet, instead string) {
	fs.StringVar(&f.secret, "self-signed-cert-secret", "", "Secret (in --namespace) in which the replicas generate, share and rotate a self-signed CA and serving certificate, "+
		"publishing the CA as the caBundle; instead of "+instead+". Delete the Secret to force a rotation.")
	fs.DurationVar(&f.certValidity, "self-signed-cert-validity", selfcert.DefaultCertValidity, "Lifetime of the self-signed serving certificate; renewed after two thirds.")
	fs.DurationVar(&f.caValidity, "self-signed-ca-validity", selfcert.DefaultCAValidity, "Lifetime of the self-signed CA; renewed after two thirds.")
	fs.DurationVar(&f.syncPeriod, "self-signed-cert-sync-period", selfcert.DefaultSyncPeriod, "How often the Secret is read and the caBundle checked.")
}

// enabled reports whether --self-signed-cert-secret is set.
func (f *selfSignedFlags) enabled() bool { return f.secret != "" }

// config returns the selfcert configuration for a component reached at
// the given host names and addresses.
func (f *selfSignedFlags) config(secrets selfcert.Secrets, namespace, component string, dnsNames []string, ips []net.IP, pubs ...selfcert.Publisher) selfcert.Config {
	cn := ""
	switch {
	case len(dnsNames) > 0:
		cn = dnsNames[0]
	case len(ips) > 0:
		cn = ips[0].String()
	}
	return selfcert.Config{
		Secrets: secrets, Namespace: namespace, SecretName: f.secret,
		Labels:     map[string]string{"app.kubernetes.io/name": "kscale-" + component, "app.kubernetes.io/managed-by": "kscale"},
		CommonName: cn, DNSNames: dnsNames, IPs: ips,
		CertValidity: f.certValidity, CAValidity: f.caValidity, SyncPeriod: f.syncPeriod,
		Publishers: pubs,
	}
}

// validate checks the flags for a component reached at the given names.
func (f *selfSignedFlags) validate(namespace, component string, dnsNames []string, ips []net.IP) error {
	return f.config(nil, namespace, component, dnsNames, ips).Validate()
}

// serviceDNSNames are the names a Service is reached by from inside the
// cluster, the API server's name first.
func serviceDNSNames(service, namespace string) []string {
	return []string{service + "." + namespace + ".svc", service + "." + namespace + ".svc.cluster.local", service + "." + namespace, service}
}

// hostSANs splits a host into an IP or a DNS name.
func hostSANs(host string) ([]string, []net.IP) {
	if ip := net.ParseIP(host); ip != nil {
		return nil, []net.IP{ip}
	}
	return []string{host}, nil
}
