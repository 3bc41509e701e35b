package selfcert

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
)

// Manager keeps a component's serving certificate: it syncs the Secret,
// publishes the CA bundle and serves the newest certificate the API server
// trusts.
type Manager struct {
	cfg    Config
	policy policy

	current   atomic.Pointer[material]
	published atomic.Pointer[[]byte]

	mu        sync.Mutex
	listeners []func()

	// Owned by the goroutine calling Start and then Run.
	pending      *material
	trustedSince map[string]time.Time
	known        []*x509.Certificate
}

// material is a serving certificate ready to serve.
type material struct {
	certPEM, keyPEM, caPEM []byte
	cert                   *tls.Certificate
	issuer                 string
	bundle                 []string
	notAfter               time.Time
}

// trusts reports whether m's bundle holds the CA with fingerprint fp.
func (m *material) trusts(fp string) bool { return slices.Contains(m.bundle, fp) }

// New validates cfg (after defaults) and builds a Manager; nothing is read
// or written before Start.
func New(cfg Config) (*Manager, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Secrets == nil {
		return nil, errors.New("self-signed certificates: a Secrets client is required")
	}
	return &Manager{
		cfg: cfg,
		policy: policy{
			caValidity: cfg.CAValidity, certValidity: cfg.CertValidity, overlap: cfg.Overlap,
			subject: subject{commonName: cfg.CommonName, dnsNames: cfg.DNSNames, ips: cfg.IPs},
			caName:  cfg.SecretName,
		},
		trustedSince: map[string]time.Time{},
	}, nil
}

// Start syncs once: it creates or adopts the Secret, renews what is due,
// publishes the bundle and takes the serving certificate. After it returns
// nil, GetCertificate and CABundle have values.
func (m *Manager) Start(ctx context.Context) error {
	if err := m.sync(ctx); err != nil {
		return err
	}
	if m.current.Load() == nil {
		return errors.New("self-signed certificates: no serving certificate after the first sync")
	}
	return nil
}

// Run syncs every sync period, and when a new certificate waits for its CA
// to propagate, at the end of that wait, until ctx ends. Failed syncs are
// logged and retried; the current certificate keeps being served.
func (m *Manager) Run(ctx context.Context) error {
	log := klog.FromContext(ctx)
	for {
		timer := m.cfg.Clock.NewTimer(m.nextWait())
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case <-timer.C():
		}
		if err := m.sync(ctx); err != nil {
			log.Error(err, "Syncing the self-signed certificates failed; retrying", "secret", m.cfg.Namespace+"/"+m.cfg.SecretName)
		}
	}
}

// nextWait is the time to the next sync: a sync period, or less when a
// pending certificate may be served sooner.
func (m *Manager) nextWait() time.Duration {
	wait := m.cfg.SyncPeriod
	if m.pending != nil {
		if d := m.trustedSince[m.pending.issuer].Add(m.cfg.Propagation).Sub(m.cfg.Clock.Now()); d < wait {
			wait = max(d, 0)
		}
	}
	return wait
}

// GetCertificate returns the serving certificate; it fits
// tls.Config.GetCertificate.
func (m *Manager) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	cur := m.current.Load()
	if cur == nil {
		return nil, errors.New("no self-signed serving certificate yet")
	}
	return cur.cert, nil
}

// CurrentCertKeyContent returns the serving certificate and key as PEM.
func (m *Manager) CurrentCertKeyContent() (cert, key []byte) {
	cur := m.current.Load()
	if cur == nil {
		return nil, nil
	}
	return cur.certPEM, cur.keyPEM
}

// CABundle returns the CA bundle (PEM) last published.
func (m *Manager) CABundle() []byte {
	if b := m.published.Load(); b != nil {
		return *b
	}
	return nil
}

// AddListener registers f to be called after the serving certificate changed.
func (m *Manager) AddListener(f func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.listeners = append(m.listeners, f)
}

// sync reads the Secret, writes what plan says is due (or adopts what a
// faster replica wrote), publishes the bundle and serves the newest
// certificate whose CA has propagated.
func (m *Manager) sync(ctx context.Context) error {
	now := m.cfg.Clock.Now()
	secret, b, err := m.read(ctx)
	if err != nil {
		return err
	}
	next, reasons, err := plan(b, m.known, now, m.policy)
	if err != nil {
		return err
	}
	if len(reasons) > 0 {
		if next, err = m.write(ctx, secret, next, reasons); err != nil {
			return err
		}
	}
	mat, err := newMaterial(next)
	if err != nil {
		return fmt.Errorf("secret %s/%s: %w", m.cfg.Namespace, m.cfg.SecretName, err)
	}
	for _, p := range m.cfg.Publishers {
		if err := p.Publish(ctx, mat.caPEM); err != nil {
			return fmt.Errorf("publishing the CA bundle: %w", err)
		}
	}
	for _, ca := range next.cas() {
		if _, ok := m.trustedSince[fingerprint(ca)]; !ok {
			m.trustedSince[fingerprint(ca)] = now
		}
	}
	m.known = next.cas()
	m.published.Store(&mat.caPEM)
	m.pending = mat
	m.trySwap(ctx, now)
	return nil
}

// read returns the Secret (nil when there is none) and what it holds.
func (m *Manager) read(ctx context.Context) (*corev1.Secret, bundle, error) {
	s, err := m.cfg.Secrets.Get(ctx, m.cfg.SecretName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, bundle{}, nil
	}
	if err != nil {
		return nil, bundle{}, fmt.Errorf("reading secret %s/%s: %w", m.cfg.Namespace, m.cfg.SecretName, err)
	}
	b, problems := decode(s.Data)
	if len(problems) > 0 && len(s.Data) > 0 {
		klog.FromContext(ctx).Info("Secret holds unusable certificates; they will be replaced",
			"secret", m.cfg.Namespace+"/"+m.cfg.SecretName, "problems", problems)
	}
	return s, b, nil
}

// write stores next in the Secret: it creates the Secret when secret is nil
// and updates it at the version read otherwise. When another replica
// created or changed it first, it returns what that replica wrote.
func (m *Manager) write(ctx context.Context, secret *corev1.Secret, next bundle, reasons []string) (bundle, error) {
	data, err := encode(next)
	if err != nil {
		return bundle{}, err
	}
	log := klog.FromContext(ctx).WithValues("secret", m.cfg.Namespace+"/"+m.cfg.SecretName)
	if secret == nil {
		secret = &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: m.cfg.SecretName, Namespace: m.cfg.Namespace, Labels: m.cfg.Labels},
			Type:       corev1.SecretTypeTLS, Data: data,
		}
		_, err = m.cfg.Secrets.Create(ctx, secret, metav1.CreateOptions{})
	} else {
		secret = secret.DeepCopy()
		secret.Data = data
		_, err = m.cfg.Secrets.Update(ctx, secret, metav1.UpdateOptions{})
	}
	switch {
	case apierrors.IsAlreadyExists(err) || apierrors.IsConflict(err):
		log.V(2).Info("Another replica wrote the certificates first; adopting them")
		_, winner, err := m.read(ctx)
		return winner, err
	case err != nil:
		return bundle{}, fmt.Errorf("writing secret %s/%s: %w", m.cfg.Namespace, m.cfg.SecretName, err)
	}
	log.Info("Issued self-signed certificates", "reasons", reasons,
		"caNotAfter", next.ca.cert.NotAfter, "servingNotAfter", next.serving.cert.NotAfter)
	return next, nil
}

// trySwap serves the pending certificate when nothing is served yet, once
// its CA has been published for the propagation delay, or when the bundle no
// longer trusts the current certificate.
func (m *Manager) trySwap(ctx context.Context, now time.Time) {
	p, cur := m.pending, m.current.Load()
	if p == nil {
		return
	}
	if cur != nil && bytes.Equal(cur.certPEM, p.certPEM) {
		m.pending = nil
		return
	}
	// The current certificate's CA left the bundle (the overlap passed while
	// publishing failed): the new certificate is the only one the API server
	// may trust, so waiting would not help.
	if cur != nil && now.Before(m.trustedSince[p.issuer].Add(m.cfg.Propagation)) && p.trusts(cur.issuer) {
		return
	}
	m.current.Store(p)
	m.pending = nil
	klog.FromContext(ctx).Info("Serving a new certificate", "secret", m.cfg.Namespace+"/"+m.cfg.SecretName, "notAfter", p.notAfter)
	m.mu.Lock()
	listeners := append([]func(){}, m.listeners...)
	m.mu.Unlock()
	for _, f := range listeners {
		f()
	}
}

// newMaterial prepares b's serving certificate for serving.
func newMaterial(b bundle) (*material, error) {
	if b.ca.cert == nil || b.serving.cert == nil {
		return nil, errors.New("no usable CA and serving certificate")
	}
	keyPEM, err := encodeKey(b.serving.key)
	if err != nil {
		return nil, err
	}
	certPEM := encodeCerts(b.serving.cert)
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("loading the serving key pair: %w", err)
	}
	return &material{
		certPEM: certPEM, keyPEM: keyPEM, caPEM: encodeCerts(b.cas()...), cert: &cert,
		issuer: fingerprint(b.ca.cert), notAfter: b.serving.cert.NotAfter,
		bundle: fingerprints(b.cas()),
	}, nil
}

func fingerprints(certs []*x509.Certificate) []string {
	out := make([]string, len(certs))
	for i, c := range certs {
		out[i] = fingerprint(c)
	}
	return out
}
