package custommetrics_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kscale/kscale/internal/custommetrics/credentials"
	"github.com/kscale/kscale/internal/custommetrics/discovery"
	"github.com/kscale/kscale/internal/custommetrics/scrape"
	"github.com/kscale/kscale/internal/custommetrics/testkube"
)

// TestScrapeRealAPIServer scrapes the real kube-apiserver (real TLS, token
// authentication, RBAC on /metrics, real megabyte bodies) through discovery
// and the credential store, across CA and token rotation (scenario 9).
func TestScrapeRealAPIServer(t *testing.T) {
	const ns = "shoot--creds--a"
	ctx := t.Context()
	shootNamespace(t, ns, env.CAData)
	testkube.Pod(t, ctx, env.Client, ns, "kapi-1", "127.0.0.1", testkube.APIServerLabels())

	client, target := scrapeClient(t, types.NamespacedName{Namespace: ns, Name: "kapi-1"})
	scrapeOK := func(t *testing.T, what string) scrape.Result {
		t.Helper()
		var res scrape.Result
		testkube.Poll(t, ctx, 10*time.Second, what, func(ctx context.Context) (bool, error) {
			var err error
			res, err = client.Scrape(ctx, target)
			return err == nil, err
		})
		return res
	}

	t.Run("sum equals the full Prometheus parse", func(t *testing.T) {
		before := scrapeOK(t, "first scrape")
		reference := expfmtRequestTotal(t)
		after := scrapeOK(t, "second scrape")
		if before.Series < 10 || before.Value <= 0 {
			t.Fatalf("scrape = %+v, want many series and a positive sum", before)
		}
		if !(before.Value <= reference && reference <= after.Value) {
			t.Fatalf("sums not ordered: ours %v <= expfmt %v <= ours %v", before.Value, reference, after.Value)
		}
	})
	t.Run("CA secret renamed by rotation", func(t *testing.T) {
		testkube.Secret(t, ctx, env.Client, ns, "ca-1a2b3", map[string]string{"name": "ca"}, map[string][]byte{"ca.crt": env.CAData})
		if err := env.Client.CoreV1().Secrets(ns).Delete(ctx, "ca", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		scrapeOK(t, "scrape after the CA rename")
	})
	t.Run("token rotation without restart", func(t *testing.T) {
		testkube.Secret(t, ctx, env.Client, ns, tokenSecret, nil, map[string][]byte{"token": []byte("revoked-token")})
		testkube.Poll(t, ctx, 10*time.Second, "401 with the wrong token", func(ctx context.Context) (bool, error) {
			_, err := client.Scrape(ctx, target)
			var se *scrape.StatusError
			return errors.As(err, &se) && se.Code == http.StatusUnauthorized, nil
		})
		testkube.Secret(t, ctx, env.Client, ns, tokenSecret, nil, map[string][]byte{"token": []byte(scraper.Token)})
		scrapeOK(t, "scrape with the rotated-back token")
	})
	t.Run("missing token key is no scrape", func(t *testing.T) {
		testkube.Secret(t, ctx, env.Client, ns, tokenSecret, nil, map[string][]byte{"other": []byte("x")})
		testkube.Poll(t, ctx, 10*time.Second, "missing credentials", func(ctx context.Context) (bool, error) {
			_, err := client.Scrape(ctx, target)
			return credentials.IsMissing(err), nil
		})
	})
}

// scrapeClient starts discovery and the credential store (stopped in
// t.Cleanup) and returns a scrape client and the discovered target key.
func scrapeClient(t *testing.T, key types.NamespacedName) (*scrape.Client, discovery.Target) {
	t.Helper()
	ctx := t.Context()
	d, err := discovery.New(discovery.Config{Client: env.Client})
	if err != nil {
		t.Fatal(err)
	}
	creds, err := credentials.New(credentials.Config{Client: env.Client})
	if err != nil {
		t.Fatal(err)
	}
	go d.Run(ctx)
	go creds.Run(ctx)
	if !d.HasSynced(ctx) || !creds.HasSynced(ctx) {
		t.Fatal("caches did not sync")
	}
	client, err := scrape.NewClient(scrape.ClientConfig{Credentials: creds, Port: apiServerPort(t)})
	if err != nil {
		t.Fatal(err)
	}
	var target discovery.Target
	testkube.Poll(t, ctx, 10*time.Second, key.Name+" discovered", func(context.Context) (bool, error) {
		var ok bool
		target, ok = d.Get(key)
		return ok, nil
	})
	return client, target
}
