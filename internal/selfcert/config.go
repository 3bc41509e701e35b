package selfcert

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
)

// Defaults of Config.
const (
	DefaultCAValidity   = 10 * 365 * 24 * time.Hour
	DefaultCertValidity = 365 * 24 * time.Hour
	DefaultSyncPeriod   = time.Minute
	DefaultPropagation  = 10 * time.Second
	DefaultOverlap      = time.Hour
)

// Secrets reads and writes Secrets of one namespace; client-go's typed
// SecretInterface is one.
type Secrets interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Secret, error)
	Create(ctx context.Context, secret *corev1.Secret, opts metav1.CreateOptions) (*corev1.Secret, error)
	Update(ctx context.Context, secret *corev1.Secret, opts metav1.UpdateOptions) (*corev1.Secret, error)
}

// Publisher makes the API server trust a CA bundle for the component, for
// example by patching a caBundle field. Publish is called with the current
// bundle on every sync, so it must be cheap when nothing changed, and must
// have taken effect (written) when it returns nil.
type Publisher interface {
	Publish(ctx context.Context, caBundle []byte) error
}

// PublisherFunc adapts a function to Publisher.
type PublisherFunc func(ctx context.Context, caBundle []byte) error

// Publish calls f.
func (f PublisherFunc) Publish(ctx context.Context, caBundle []byte) error { return f(ctx, caBundle) }

// Config configures a Manager.
type Config struct {
	// Secrets is the client of the Secret's namespace.
	Secrets Secrets
	// Namespace and SecretName name the Secret; --self-signed-cert-secret.
	Namespace, SecretName string
	// Labels are put on the Secret when it is created.
	Labels map[string]string
	// CommonName is the serving certificate's subject, usually the first DNS name.
	CommonName string
	// DNSNames and IPs are the serving certificate's subject alternative names.
	DNSNames []string
	IPs      []net.IP
	// CAValidity is the CA's lifetime; --self-signed-ca-validity.
	CAValidity time.Duration
	// CertValidity is the serving certificate's lifetime; --self-signed-cert-validity.
	CertValidity time.Duration
	// SyncPeriod is how often the Secret is read and the bundle published
	// again; --self-signed-cert-sync-period.
	SyncPeriod time.Duration
	// Propagation is how long a replica waits, after publishing a bundle
	// with a new CA, before it serves a certificate of that CA: the time the
	// API server takes to see the new caBundle.
	Propagation time.Duration
	// Overlap is how long an earlier CA stays in the bundle after a new CA
	// was issued: every replica must have read the Secret and switched in
	// that time. At least two sync periods plus the propagation delay;
	// default DefaultOverlap or that minimum, whichever is longer.
	Overlap time.Duration
	// Publishers make the API server trust the bundle.
	Publishers []Publisher
	// Clock drives renewal and the sync loop; default the real clock.
	Clock clock.WithTicker
}

// withDefaults returns c with zero durations and the clock defaulted.
func (c Config) withDefaults() Config {
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{
		{&c.CAValidity, DefaultCAValidity}, {&c.CertValidity, DefaultCertValidity}, {&c.SyncPeriod, DefaultSyncPeriod},
		{&c.Propagation, DefaultPropagation},
	} {
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	if c.Overlap == 0 {
		c.Overlap = max(DefaultOverlap, 2*c.SyncPeriod+c.Propagation)
	}
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
	return c
}

// Validate reports every invalid setting after defaults, naming its flag
// where it has one. The collaborators (Secrets, Publishers, Clock) are
// checked by New.
func (c Config) Validate() error {
	c = c.withDefaults()
	var errs []error
	if c.Namespace == "" || c.SecretName == "" {
		errs = append(errs, errors.New("--self-signed-cert-secret: the Secret's name and namespace are required"))
	}
	if c.CommonName == "" || len(c.DNSNames)+len(c.IPs) == 0 {
		errs = append(errs, errors.New("self-signed certificates: a common name and at least one DNS name or IP are required"))
	}
	if c.SyncPeriod <= 0 || c.Propagation < 0 {
		errs = append(errs, fmt.Errorf("--self-signed-cert-sync-period: must be positive, got %s", c.SyncPeriod))
	}
	if minimum := 3 * (c.SyncPeriod + c.Propagation); c.CertValidity < minimum {
		errs = append(errs, fmt.Errorf("--self-signed-cert-validity: must be at least %s (three sync periods and the propagation delay), got %s", minimum, c.CertValidity))
	}
	if c.CAValidity < c.CertValidity {
		errs = append(errs, fmt.Errorf("--self-signed-ca-validity: must be at least --self-signed-cert-validity (%s), got %s", c.CertValidity, c.CAValidity))
	}
	if minimum := 2*c.SyncPeriod + c.Propagation; c.Overlap < minimum {
		errs = append(errs, fmt.Errorf("self-signed certificates: the CA overlap must be at least %s, got %s", minimum, c.Overlap))
	}
	return errors.Join(errs...)
}
