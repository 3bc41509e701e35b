package selfcert

import (
	"net"
	"time"

	"github.com/spf13/pflag"
)

// Flags are the command-line flags of certificates that manage themselves,
// the same for every component that serves the API server (kscale-only:
// upstream has no equivalent).
type Flags struct {
	// Secret is --self-signed-cert-secret; empty: the feature is off.
	Secret       string
	certValidity time.Duration
	caValidity   time.Duration
	syncPeriod   time.Duration
}

// AddFlags registers the flags on fs; instead names the flags of the
// certificate files they replace.
func (f *Flags) AddFlags(fs *pflag.FlagSet, instead string) {
	fs.StringVar(&f.Secret, "self-signed-cert-secret", "", "Secret (in --namespace) in which the replicas generate, share and rotate a self-signed CA and serving certificate, "+
		"publishing the CA as the caBundle; instead of "+instead+". Delete the Secret to force a rotation.")
	fs.DurationVar(&f.certValidity, "self-signed-cert-validity", DefaultCertValidity, "Lifetime of the self-signed serving certificate; renewed after two thirds.")
	fs.DurationVar(&f.caValidity, "self-signed-ca-validity", DefaultCAValidity, "Lifetime of the self-signed CA; renewed after two thirds.")
	fs.DurationVar(&f.syncPeriod, "self-signed-cert-sync-period", DefaultSyncPeriod, "How often the Secret is read and the caBundle checked.")
}

// Enabled reports whether --self-signed-cert-secret is set.
func (f *Flags) Enabled() bool { return f.Secret != "" }

// Config returns the configuration for a component reached at the given
// host names and addresses.
func (f *Flags) Config(secrets Secrets, namespace, component string, dnsNames []string, ips []net.IP, pubs ...Publisher) Config {
	cn := ""
	switch {
	case len(dnsNames) > 0:
		cn = dnsNames[0]
	case len(ips) > 0:
		cn = ips[0].String()
	}
	return Config{
		Secrets: secrets, Namespace: namespace, SecretName: f.Secret,
		Labels:     map[string]string{"app.kubernetes.io/name": "kscale-" + component, "app.kubernetes.io/managed-by": "kscale"},
		CommonName: cn, DNSNames: dnsNames, IPs: ips,
		CertValidity: f.certValidity, CAValidity: f.caValidity, SyncPeriod: f.syncPeriod,
		Publishers: pubs,
	}
}

// ServiceDNSNames are the names a Service is reached by from inside the
// cluster, the API server's name first.
func ServiceDNSNames(service, namespace string) []string {
	return []string{service + "." + namespace + ".svc", service + "." + namespace + ".svc.cluster.local", service + "." + namespace, service}
}

// HostSANs splits a host into an IP or a DNS name.
func HostSANs(host string) ([]string, []net.IP) {
	if ip := net.ParseIP(host); ip != nil {
		return nil, []net.IP{ip}
	}
	return []string{host}, nil
}
