package selfcert

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kscale/kscale/internal/testenv"
)

// recorder is a Publisher that remembers every bundle and can fail.
type recorder struct {
	mu      sync.Mutex
	bundles [][]byte
	fail    error
}

func (r *recorder) Publish(_ context.Context, ca []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return r.fail
	}
	r.bundles = append(r.bundles, ca)
	return nil
}

func (r *recorder) last() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.bundles) == 0 {
		return nil
	}
	return r.bundles[len(r.bundles)-1]
}

type fixture struct {
	t     *testing.T
	c     kubernetes.Interface
	ns    string
	clock *clocktesting.FakeClock
}

func newFixture(t *testing.T, c kubernetes.Interface, ns string) *fixture {
	t.Helper()
	if _, err := c.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.CoreV1().Namespaces().Delete(context.WithoutCancel(t.Context()), ns, metav1.DeleteOptions{})
	})
	return &fixture{t: t, c: c, ns: ns, clock: clocktesting.NewFakeClock(time.Now())}
}

// manager is one replica's Manager on the fake clock.
func (f *fixture) manager(pub Publisher) *Manager {
	f.t.Helper()
	m, err := New(Config{
		Secrets: f.c.CoreV1().Secrets(f.ns), Namespace: f.ns, SecretName: "webhook-tls",
		Labels:     map[string]string{"app.kubernetes.io/name": "test"},
		CommonName: "webhook." + f.ns + ".svc", DNSNames: []string{"webhook." + f.ns + ".svc"}, IPs: []net.IP{net.ParseIP("127.0.0.1")},
		CAValidity: 90 * 24 * time.Hour, CertValidity: 30 * 24 * time.Hour,
		Publishers: []Publisher{pub}, Clock: f.clock,
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return m
}

func (f *fixture) secret() *corev1.Secret {
	f.t.Helper()
	s, err := f.c.CoreV1().Secrets(f.ns).Get(f.t.Context(), "webhook-tls", metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

func served(t *testing.T, m *Manager) *x509.Certificate {
	t.Helper()
	c, err := m.GetCertificate(&tls.ClientHelloInfo{})
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(c.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	return leaf
}

// trusts reports whether the bundle verifies the certificate for the DNS name.
func trusts(bundlePEM []byte, leaf *x509.Certificate, name string, at time.Time) bool {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(bundlePEM)
	_, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: name, CurrentTime: at})
	return err == nil
}

func TestManagerAgainstAPIServer(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	t.Run("replicas starting together share one Secret", func(t *testing.T) { testShare(t, env) })
	t.Run("renewal and CA rotation keep every served certificate trusted", func(t *testing.T) { testRotation(t, env) })
	t.Run("a deleted Secret is recreated and the old CA stays trusted", func(t *testing.T) { testDeleted(t, env) })
	t.Run("a failed publish keeps the old certificate", func(t *testing.T) { testPublishFailure(t, env) })
	t.Run("Run rotates on its own", func(t *testing.T) { testRun(t, env) })
}

func testShare(t *testing.T, env *testenv.Env) {
	f := newFixture(t, env.Client, "share")
	const replicas = 4
	ms := make([]*Manager, replicas)
	pubs := make([]*recorder, replicas)
	errs := make([]error, replicas)
	var wg sync.WaitGroup
	for i := range ms {
		pubs[i] = &recorder{}
		ms[i] = f.manager(pubs[i])
		wg.Go(func() { errs[i] = ms[i].Start(t.Context()) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	s := f.secret()
	if s.Type != corev1.SecretTypeTLS || s.Labels["app.kubernetes.io/name"] != "test" {
		t.Errorf("secret type %s labels %v", s.Type, s.Labels)
	}
	for i, m := range ms {
		if !bytes.Equal(served(t, m).Raw, served(t, ms[0]).Raw) {
			t.Errorf("replica %d serves another certificate than replica 0", i)
		}
		if !bytes.Equal(pubs[i].last(), s.Data[KeyCABundle]) || !bytes.Equal(m.CABundle(), s.Data[KeyCABundle]) {
			t.Errorf("replica %d published another bundle than the Secret's", i)
		}
		if !trusts(m.CABundle(), served(t, m), "webhook.share.svc", f.clock.Now()) {
			t.Errorf("replica %d: bundle does not trust the served certificate", i)
		}
	}
}

func testRotation(t *testing.T, env *testenv.Env) {
	f := newFixture(t, env.Client, "rotation")
	pa, pb := &recorder{}, &recorder{}
	a, b := f.manager(pa), f.manager(pb)
	for _, m := range []*Manager{a, b} {
		if err := m.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	first := served(t, a)
	firstBundle := a.CABundle()

	// Day 21: the serving certificate (30 days) is due; same CA, so both
	// replicas serve the new one at once and the bundle is unchanged.
	f.clock.Step(21 * 24 * time.Hour)
	syncAll(t, a, b)
	second := served(t, a)
	if bytes.Equal(second.Raw, first.Raw) || !bytes.Equal(served(t, b).Raw, second.Raw) {
		t.Fatal("serving certificate not renewed on both replicas")
	}
	if !bytes.Equal(a.CABundle(), firstBundle) {
		t.Error("renewing the serving certificate changed the CA bundle")
	}

	// Day 41: renewed again. Day 61: the CA (90 days) is due. The new
	// bundle holds both CAs and is published, but the replicas keep serving
	// the old certificate until the bundle has propagated.
	f.clock.Step(20 * 24 * time.Hour)
	syncAll(t, a, b)
	second = served(t, a)
	f.clock.Step(20 * 24 * time.Hour)
	syncAll(t, a, b)
	bundle := pb.last()
	if cas, err := parseCerts(bundle); err != nil || len(cas) != 2 {
		t.Fatalf("published bundle has %d CAs (%v), want the new and the old", len(cas), err)
	}
	for _, m := range []*Manager{a, b} {
		if !bytes.Equal(served(t, m).Raw, second.Raw) {
			t.Error("a replica served the new CA's certificate before the bundle propagated")
		}
		if !trusts(bundle, served(t, m), "webhook.rotation.svc", f.clock.Now()) {
			t.Error("the published bundle does not trust the certificate still served")
		}
	}
	f.clock.Step(DefaultPropagation)
	syncAll(t, a, b)
	third := served(t, a)
	if bytes.Equal(third.Raw, second.Raw) || !bytes.Equal(served(t, b).Raw, third.Raw) {
		t.Fatal("the new CA's certificate is not served after the propagation delay")
	}
	if !trusts(pa.last(), third, "webhook.rotation.svc", f.clock.Now()) {
		t.Error("bundle does not trust the new certificate")
	}

	// After the overlap the old CA leaves the bundle.
	f.clock.Step(DefaultOverlap)
	syncAll(t, a, b)
	if cas, _ := parseCerts(pa.last()); len(cas) != 1 {
		t.Errorf("bundle after the overlap has %d CAs, want 1", len(cas))
	}
}

func syncAll(t *testing.T, ms ...*Manager) {
	t.Helper()
	for _, m := range ms {
		if err := m.sync(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
}

func testDeleted(t *testing.T, env *testenv.Env) {
	f := newFixture(t, env.Client, "deleted")
	pub := &recorder{}
	a, b := f.manager(pub), f.manager(&recorder{})
	syncAll(t, a, b)
	old := served(t, a)
	if err := env.Client.CoreV1().Secrets(f.ns).Delete(t.Context(), "webhook-tls", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	syncAll(t, b, a)
	if !trusts(pub.last(), old, "webhook.deleted.svc", f.clock.Now()) {
		t.Error("the recreated bundle drops the CA of the certificate being served")
	}
	f.clock.Step(DefaultPropagation)
	syncAll(t, a, b)
	if now := served(t, a); bytes.Equal(now.Raw, old.Raw) || !bytes.Equal(served(t, b).Raw, now.Raw) {
		t.Error("replicas do not serve the recreated Secret's certificate")
	}
	if !bytes.Equal(f.secret().Data[KeyCABundle], pub.last()) {
		t.Error("published bundle differs from the recreated Secret's")
	}
}

func testPublishFailure(t *testing.T, env *testenv.Env) {
	f := newFixture(t, env.Client, "publish")
	pub := &recorder{}
	m := f.manager(pub)
	if err := m.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	old := served(t, m)
	pub.fail = errors.New("API server says no")
	f.clock.Step(61 * 24 * time.Hour)
	if err := m.sync(t.Context()); err == nil {
		t.Fatal("sync succeeded although publishing failed")
	}
	f.clock.Step(time.Hour)
	_ = m.sync(t.Context())
	if !bytes.Equal(served(t, m).Raw, old.Raw) {
		t.Error("switched to a certificate whose CA was never published")
	}
	pub.fail = nil
	if err := m.sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	f.clock.Step(DefaultPropagation)
	if err := m.sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(served(t, m).Raw, old.Raw) {
		t.Error("still serving the old certificate once the bundle was published")
	}
}

func testRun(t *testing.T, env *testenv.Env) {
	ns := "run"
	newFixture(t, env.Client, ns)
	changed := make(chan struct{}, 1)
	m, err := New(Config{
		Secrets: env.Client.CoreV1().Secrets(ns), Namespace: ns, SecretName: "webhook-tls",
		CommonName: "webhook.run.svc", DNSNames: []string{"webhook.run.svc"},
		SyncPeriod: 100 * time.Millisecond, Propagation: 100 * time.Millisecond,
		Publishers: []Publisher{&recorder{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	m.AddListener(func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	<-changed
	go func() { done <- m.Run(ctx) }()
	old := served(t, m)
	if err := env.Client.CoreV1().Secrets(ns).Delete(t.Context(), "webhook-tls", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(30 * time.Second):
		t.Fatal("no new certificate within 30s of deleting the Secret")
	}
	if bytes.Equal(served(t, m).Raw, old.Raw) {
		t.Error("listener called without a new certificate")
	}
	err = wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := env.Client.CoreV1().Secrets(ns).Get(ctx, "webhook-tls", metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatal(fmt.Errorf("secret not recreated: %w", err))
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
