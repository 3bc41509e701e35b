package selfcert

import (
	"crypto/x509"
	"net"
	"slices"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func testPolicy() policy {
	return policy{
		caValidity: 300 * 24 * time.Hour, certValidity: 30 * 24 * time.Hour, overlap: time.Hour,
		subject: subject{commonName: "svc.ns.svc", dnsNames: []string{"svc.ns.svc", "svc.ns"}, ips: []net.IP{net.ParseIP("127.0.0.1")}},
		caName:  "test",
	}
}

// issued returns a complete bundle planned from nothing at t0.
func issued(t *testing.T) bundle {
	t.Helper()
	return issuedAt(t)
}

func TestPlan(t *testing.T) {
	base := issued(t)
	other := issued(t)
	renamed := testPolicy()
	renamed.subject.dnsNames = []string{"svc.other.svc"}
	damaged := base
	damaged.ca = keyPair{}
	damaged.previous = []*x509.Certificate{base.ca.cert}
	caRotated, _, err := plan(base, nil, t0.Add(201*24*time.Hour), testPolicy())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		in          bundle
		known       []*x509.Certificate
		at          time.Time
		pol         policy
		wantReasons []string
		newCA       bool
		newServing  bool
		previous    []*x509.Certificate // earlier CAs in the result
	}{
		{name: "nothing: CA and serving certificate", in: bundle{}, at: t0, pol: testPolicy(),
			wantReasons: []string{"no usable CA", "no usable serving certificate"}, newCA: true, newServing: true},
		{name: "fresh: nothing to do", in: base, at: t0.Add(time.Hour), pol: testPolicy()},
		{name: "just before two thirds of the serving lifetime", in: base, at: t0.Add(20*24*time.Hour - backdate/3 - time.Second), pol: testPolicy()},
		{name: "two thirds of the serving lifetime: reissued by the same CA", in: base, at: t0.Add(20*24*time.Hour - backdate/3), pol: testPolicy(),
			wantReasons: []string{"serving certificate due for renewal"}, newServing: true},
		{name: "names changed: reissued", in: base, at: t0.Add(time.Hour), pol: renamed,
			wantReasons: []string{"serving certificate names changed"}, newServing: true},
		{name: "serving certificate of another CA: reissued", in: bundle{ca: base.ca, serving: other.serving}, at: t0.Add(time.Hour), pol: testPolicy(),
			wantReasons: []string{"serving certificate not signed by the current CA"}, newServing: true},
		{name: "two thirds of the CA lifetime: new CA, old one kept", in: base, at: t0.Add(201 * 24 * time.Hour), pol: testPolicy(),
			wantReasons: []string{"CA due for renewal", "no usable serving certificate"}, newCA: true, newServing: true,
			previous: []*x509.Certificate{base.ca.cert}},
		{name: "earlier CA dropped after the overlap", in: caRotated, at: t0.Add(201*24*time.Hour + time.Hour), pol: testPolicy(),
			wantReasons: []string{"1 earlier CA(s) past the overlap or expired"}},
		{name: "earlier CA kept within the overlap", in: caRotated, at: t0.Add(201*24*time.Hour + 59*time.Minute), pol: testPolicy(),
			previous: []*x509.Certificate{base.ca.cert}},
		{name: "CA key lost: new CA, bundle kept", in: damaged, at: t0.Add(time.Hour), pol: testPolicy(),
			wantReasons: []string{"no usable CA", "no usable serving certificate"}, newCA: true, newServing: true,
			previous: []*x509.Certificate{base.ca.cert}},
		{name: "secret deleted: new CA, the CAs this replica trusts kept", in: bundle{}, known: base.cas(), at: t0.Add(time.Hour), pol: testPolicy(),
			wantReasons: []string{"no usable CA", "no usable serving certificate"}, newCA: true, newServing: true,
			previous: []*x509.Certificate{base.ca.cert}},
		{name: "known CAs ignored while the secret is intact", in: base, known: other.cas(), at: t0.Add(time.Hour), pol: testPolicy()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reasons, err := plan(tt.in, tt.known, tt.at, tt.pol)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(reasons, tt.wantReasons) {
				t.Errorf("reasons = %q, want %q", reasons, tt.wantReasons)
			}
			if changed := tt.in.ca.cert == nil || fingerprint(got.ca.cert) != fingerprint(tt.in.ca.cert); changed != tt.newCA {
				t.Errorf("new CA = %v, want %v", changed, tt.newCA)
			}
			if changed := tt.in.serving.cert == nil || fingerprint(got.serving.cert) != fingerprint(tt.in.serving.cert); changed != tt.newServing {
				t.Errorf("new serving certificate = %v, want %v", changed, tt.newServing)
			}
			if !slices.Equal(fingerprints(got.previous), fingerprints(tt.previous)) {
				t.Errorf("earlier CAs = %d, want %d", len(got.previous), len(tt.previous))
			}
			checkUsable(t, got, tt.pol.subject, tt.at)
		})
	}
}

// checkUsable verifies the result as a TLS client would: the serving
// certificate chains to the bundle and names the subject.
func checkUsable(t *testing.T, b bundle, sub subject, at time.Time) {
	t.Helper()
	pool := x509.NewCertPool()
	for _, c := range b.cas() {
		pool.AddCert(c)
	}
	for _, name := range append(sub.dnsNames, sub.ips[0].String()) {
		if _, err := b.serving.cert.Verify(x509.VerifyOptions{Roots: pool, DNSName: name, CurrentTime: at}); err != nil {
			t.Errorf("serving certificate for %s: %v", name, err)
		}
	}
	if !matches(b.serving.cert, b.serving.key) || !matches(b.ca.cert, b.ca.key) {
		t.Error("a key does not match its certificate")
	}
}

func TestServingNeverOutlivesCA(t *testing.T) {
	p := testPolicy()
	p.caValidity, p.certValidity = 40*24*time.Hour, 30*24*time.Hour
	b, _, err := plan(bundle{}, nil, t0, p)
	if err != nil {
		t.Fatal(err)
	}
	// Renewed at day 20 (two thirds of 30 days), the certificate would end
	// after the CA (day 40): it ends with it.
	next, _, err := plan(b, nil, t0.Add(20*24*time.Hour), p)
	if err != nil {
		t.Fatal(err)
	}
	if !next.serving.cert.NotAfter.Equal(b.ca.cert.NotAfter) {
		t.Errorf("serving certificate ends %s, CA %s", next.serving.cert.NotAfter, b.ca.cert.NotAfter)
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	b, _, err := plan(issued(t), nil, t0.Add(201*24*time.Hour), testPolicy())
	if err != nil {
		t.Fatal(err)
	}
	data, err := encode(b)
	if err != nil {
		t.Fatal(err)
	}
	got, problems := decode(data)
	if len(problems) > 0 {
		t.Fatalf("problems: %q", problems)
	}
	if !slices.Equal(fingerprints(got.cas()), fingerprints(b.cas())) || fingerprint(got.serving.cert) != fingerprint(b.serving.cert) {
		t.Error("round trip changed the bundle")
	}
}

func TestDecodeDamaged(t *testing.T) {
	good, err := encode(issued(t))
	if err != nil {
		t.Fatal(err)
	}
	other, err := encode(issued(t))
	if err != nil {
		t.Fatal(err)
	}
	with := func(key string, v []byte) map[string][]byte {
		d := map[string][]byte{}
		for k, val := range good {
			d[k] = val
		}
		d[key] = v
		return d
	}
	tests := []struct {
		name        string
		data        map[string][]byte
		problem     string
		ca, serving bool
		previous    int
	}{
		{"empty secret", map[string][]byte{}, "ca.crt: no certificate", false, false, 0},
		{"garbage bundle", with(KeyCABundle, []byte("hello")), "ca.crt: not PEM", false, false, 0},
		{"key instead of certificate", with(KeyCABundle, good[KeyCAKey]), `ca.crt: PEM block "PRIVATE KEY"`, false, false, 0},
		{"CA key of another CA", with(KeyCAKey, other[KeyCAKey]), "ca.key: not the key of the CA", false, true, 1},
		{"serving key of another certificate", with(KeyKey, other[KeyKey]), "tls.key: not the key of tls.crt", true, false, 0},
		{"serving certificate missing", with(KeyCert, nil), "tls.crt: no certificate", true, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, problems := decode(tt.data)
			if len(problems) != 1 || !strings.Contains(problems[0], tt.problem) {
				t.Errorf("problems = %q, want one containing %q", problems, tt.problem)
			}
			if (b.ca.cert != nil) != tt.ca || (b.serving.cert != nil) != tt.serving || len(b.previous) != tt.previous {
				t.Errorf("decoded ca=%v serving=%v previous=%d, want %v %v %d", b.ca.cert != nil, b.serving.cert != nil, len(b.previous), tt.ca, tt.serving, tt.previous)
			}
		})
	}
}
