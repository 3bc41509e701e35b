package credentials_test

import (
	"context"
	"crypto/x509"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/custommetrics/credentials"
	"github.com/kscale/kscale/internal/custommetrics/testkube"
	"github.com/kscale/kscale/internal/custommetrics/testpki"
	"github.com/kscale/kscale/internal/testenv"
)

const (
	ns        = "shoot--p--a"
	tokenName = "shoot-access-gardener-custom-metrics"
)

// TestStore is scenario 9 for the credential store against a real API server.
func TestStore(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	ctx := t.Context()
	c := env.Client
	testkube.Namespace(t, ctx, c, ns)
	caOld, caNew := testpki.NewCA(t, "ca-old"), testpki.NewCA(t, "ca-new")

	s, err := credentials.New(credentials.Config{Client: c})
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go s.Run(sctx)
	if !s.HasSynced(ctx) {
		t.Fatal("cache did not sync")
	}

	t.Run("nothing yet", func(t *testing.T) {
		if _, err := s.Lookup(ns); !credentials.IsMissing(err) {
			t.Fatalf("Lookup() error = %v, want missing", err)
		}
	})
	t.Run("missing token key is an error", func(t *testing.T) {
		testkube.Secret(t, ctx, c, ns, tokenName, nil, map[string][]byte{"other": []byte("x")})
		testkube.Secret(t, ctx, c, ns, "ca", map[string]string{"name": "ca"}, map[string][]byte{"ca.crt": caOld.PEM})
		expectLookup(t, s, "missing token key", func(_ credentials.Credentials, err error) bool {
			return credentials.IsMissing(err) && err.Error() == "namespace shoot--p--a: missing secret "+tokenName+" key token"
		})
	})
	t.Run("token and CA", func(t *testing.T) {
		testkube.Secret(t, ctx, c, ns, tokenName, nil, map[string][]byte{"token": []byte("T1")})
		expectLookup(t, s, "token T1 and old CA", func(cr credentials.Credentials, err error) bool {
			return err == nil && cr.Token == "T1" && verifies(cr.CAs, caOld) && !verifies(cr.CAs, caNew)
		})
	})
	t.Run("token rotation is picked up", func(t *testing.T) {
		testkube.Secret(t, ctx, c, ns, tokenName, nil, map[string][]byte{"token": []byte("T2")})
		expectLookup(t, s, "token T2", func(cr credentials.Credentials, err error) bool { return err == nil && cr.Token == "T2" })
	})
	t.Run("CA rotation renames the secret", func(t *testing.T) {
		var before credentials.Credentials
		before, _ = s.Lookup(ns)
		testkube.Secret(t, ctx, c, ns, "ca-1a2b3", map[string]string{"name": "ca"}, map[string][]byte{"ca.crt": caNew.PEM})
		expectLookup(t, s, "both CAs trusted during the rotation", func(cr credentials.Credentials, err error) bool {
			return err == nil && verifies(cr.CAs, caOld) && verifies(cr.CAs, caNew) && cr.CAFingerprint != before.CAFingerprint
		})
		if err := c.CoreV1().Secrets(ns).Delete(ctx, "ca", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		expectLookup(t, s, "only the new CA after the old secret is gone", func(cr credentials.Credentials, err error) bool {
			return err == nil && !verifies(cr.CAs, caOld) && verifies(cr.CAs, caNew)
		})
	})
	t.Run("CA bundle secret", func(t *testing.T) {
		testkube.Secret(t, ctx, c, ns, "ca-bundle-x", map[string]string{"name": "ca-bundle"}, map[string][]byte{"bundle.crt": append(append([]byte{}, caOld.PEM...), caNew.PEM...)})
		expectLookup(t, s, "bundle trusted", func(cr credentials.Credentials, err error) bool {
			return err == nil && verifies(cr.CAs, caOld) && verifies(cr.CAs, caNew)
		})
	})
	t.Run("unparseable CA is a clear error", func(t *testing.T) {
		const bad = "shoot--p--bad"
		testkube.Namespace(t, ctx, c, bad)
		testkube.Secret(t, ctx, c, bad, tokenName, nil, map[string][]byte{"token": []byte("T1")})
		testkube.Secret(t, ctx, c, bad, "ca", map[string]string{"name": "ca"}, map[string][]byte{"ca.crt": []byte("not pem")})
		want := "namespace shoot--p--bad: missing CA certificate (keys ca.crt, bundle.crt in labelled secrets): secret ca key ca.crt: no PEM certificate found"
		testkube.Poll(t, ctx, 10*time.Second, "CA error", func(context.Context) (bool, error) {
			_, err := s.Lookup(bad)
			return err != nil && err.Error() == want, err
		})
	})
	t.Run("token is never printed", func(t *testing.T) {
		cr, err := s.Lookup(ns)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"%v", "%+v", "%#v", "%s"} {
			if out := fmt.Sprintf(f, cr); containsToken(out) {
				t.Fatalf("Sprintf(%q) = %q reveals the token", f, out)
			}
		}
	})
}

func containsToken(s string) bool {
	for i := 0; i+2 <= len(s); i++ {
		if s[i:i+2] == "T1" || s[i:i+2] == "T2" {
			return true
		}
	}
	return false
}

func verifies(pool *x509.CertPool, ca *testpki.CA) bool {
	_, err := ca.Cert.Verify(x509.VerifyOptions{Roots: pool})
	return err == nil
}

func expectLookup(t *testing.T, s *credentials.Store, what string, ok func(credentials.Credentials, error) bool) {
	t.Helper()
	testkube.Poll(t, t.Context(), 10*time.Second, what, func(context.Context) (bool, error) {
		return ok(s.Lookup(ns)), nil
	})
}
