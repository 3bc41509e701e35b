package ha

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/kscale/kscale/internal/custommetrics/testkube"
	"github.com/kscale/kscale/internal/leaderelection"
	"github.com/kscale/kscale/internal/operator"
	"github.com/kscale/kscale/internal/testenv"
)

const ns = "kube-system"

func TestEndpointsAndElection(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	ctx := t.Context()
	newElector := func(t *testing.T, id, ip string) *Endpoints {
		t.Helper()
		e, err := New(Config{Client: env.Client, Namespace: ns, Identity: id, Address: ip, ServiceName: "cm", LeaseName: "cm-lease",
			LeaseDuration: 4 * time.Second, RenewDeadline: 3 * time.Second, RetryPeriod: 500 * time.Millisecond, ReassertPeriod: 500 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	a, b := newElector(t, "a", "10.0.0.1"), newElector(t, "b", "10.0.0.2")
	endpoints := env.Client.CoreV1().Endpoints(ns) //nolint:staticcheck // the Endpoints the elector writes
	addresses := func(t *testing.T) []string {
		t.Helper()
		ep, err := endpoints.Get(ctx, "cm", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range ep.Subsets {
			for _, a := range s.Addresses {
				out = append(out, a.IP)
			}
		}
		return out
	}

	t.Run("publish creates exactly one endpoint", func(t *testing.T) {
		if err := a.publish(ctx); err != nil {
			t.Fatal(err)
		}
		ep, err := endpoints.Get(ctx, "cm", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := addresses(t); len(got) != 1 || got[0] != "10.0.0.1" {
			t.Fatalf("addresses = %v", got)
		}
		if ep.Labels[AppLabel] != "cm" || len(ep.Subsets[0].Ports) != 1 || ep.Subsets[0].Ports[0].Port != 6443 || ep.Subsets[0].Ports[0].Name != "" {
			t.Fatalf("endpoints = %+v", ep)
		}
	})
	t.Run("publish repairs Endpoints listing two addresses", func(t *testing.T) {
		ep, _ := endpoints.Get(ctx, "cm", metav1.GetOptions{})
		ep.Subsets[0].Addresses = append(ep.Subsets[0].Addresses, corev1.EndpointAddress{IP: "10.0.0.9"})
		if _, err := endpoints.Update(ctx, ep, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := a.publish(ctx); err != nil {
			t.Fatal(err)
		}
		if got := addresses(t); len(got) != 1 || got[0] != "10.0.0.1" {
			t.Fatalf("addresses = %v, want only 10.0.0.1", got)
		}
	})
	t.Run("withdraw keeps another replica's Endpoints", func(t *testing.T) {
		if err := b.publish(ctx); err != nil {
			t.Fatal(err)
		}
		if err := a.withdraw(ctx); err != nil {
			t.Fatal(err)
		}
		if got := addresses(t); len(got) != 1 || got[0] != "10.0.0.2" {
			t.Fatalf("addresses after a's withdraw = %v, want b's", got)
		}
		if err := b.withdraw(ctx); err != nil {
			t.Fatal(err)
		}
		if got := addresses(t); got != nil {
			t.Fatalf("addresses after b's withdraw = %v, want them emptied", got)
		}
	})
	t.Run("graceful stop withdraws, then releases the lease", func(t *testing.T) {
		rctx, cancel := context.WithCancel(ctx)
		leading := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			done <- runLeader(rctx, env.Client, a, leading)
		}()
		<-leading
		testkube.Poll(t, ctx, 10*time.Second, "a's Endpoints", func(context.Context) (bool, error) {
			got := addresses(t)
			return len(got) == 1 && got[0] == "10.0.0.1", nil
		})
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Run() = %v after a graceful stop, want nil", err)
		}
		if got := addresses(t); got != nil {
			t.Fatalf("addresses after graceful stop = %v, want none", got)
		}
		lease, err := env.Client.CoordinationV1().Leases(ns).Get(ctx, "cm-lease", metav1.GetOptions{})
		if err != nil || (lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity != "") {
			t.Fatalf("lease = %+v, %v; want released", lease.Spec, err)
		}
	})
	t.Run("lost lease ends the leading work", func(t *testing.T) {
		done := make(chan error, 1)
		leading := make(chan struct{})
		go func() {
			done <- runLeader(ctx, env.Client, b, leading)
		}()
		<-leading
		// Another holder takes the lease over (as after a partition).
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			lease, err := env.Client.CoordinationV1().Leases(ns).Get(ctx, "cm-lease", metav1.GetOptions{})
			if err != nil {
				return err
			}
			lease.Spec.HolderIdentity = ptr.To("intruder")
			lease.Spec.RenewTime = &metav1.MicroTime{Time: time.Now().Add(time.Hour)}
			_, err = env.Client.CoordinationV1().Leases(ns).Update(ctx, lease, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			if !errors.Is(err, leaderelection.ErrLeadershipLost) {
				t.Fatalf("Run() = %v, want ErrLeadershipLost", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("Run() did not return after the lease was taken")
		}
	})
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name      string
		cfg       Config
		noClient  bool
		wantField string // "" for valid
	}{
		{"valid", Config{Namespace: "ns", Address: "10.0.0.1"}, false, ""},
		{"IPv6", Config{Namespace: "ns", Address: "fd00::1"}, false, ""},
		{"no client", Config{Namespace: "ns", Address: "10.0.0.1"}, true, "client"},
		{"no namespace", Config{Address: "10.0.0.1"}, false, "namespace"},
		{"bad address", Config{Namespace: "ns", Address: "pod"}, false, "address"},
		{"bad port", Config{Namespace: "ns", Address: "10.0.0.1", Port: 70000}, false, "port"},
		{"renew above lease", Config{Namespace: "ns", Address: "10.0.0.1", RenewDeadline: time.Minute}, false, "leaseDuration"},
		{"retry above renew", Config{Namespace: "ns", Address: "10.0.0.1", RetryPeriod: 12 * time.Second}, false, "renewDeadline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.noClient {
				tt.cfg.Client = testenvClientPlaceholder()
			}
			tt.cfg.Default()
			err := tt.cfg.Validate()
			var fe *FieldError
			switch {
			case tt.wantField == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case tt.wantField != "" && (!errors.As(err, &fe) || fe.Field != tt.wantField):
				t.Fatalf("Validate() = %v, want a FieldError on %s", err, tt.wantField)
			}
			if settings := tt.cfg.ValidateSettings(); tt.noClient && settings != nil {
				t.Errorf("ValidateSettings() = %v without the client, want nil", settings)
			}
		})
	}
}

// testenvClientPlaceholder is a real clientset that is never used:
// validation only checks that a client is set.
func testenvClientPlaceholder() kubernetes.Interface {
	return kubernetes.NewForConfigOrDie(&rest.Config{Host: "https://127.0.0.1:1"})
}

// runLeader runs e's leader term through the host, with leading work
// that closes leading and waits for its end.
func runLeader(ctx context.Context, client kubernetes.Interface, e *Endpoints, leading chan struct{}) error {
	comp := operator.Component{Lead: func(ctx context.Context) (*operator.Term, error) {
		return e.LeadTerm(ctx, func(ctx context.Context) error { close(leading); <-ctx.Done(); return nil }), nil
	}}
	return operator.Run(ctx, operator.Config{Election: e.Config().Election(), Client: client, NoSignals: true}, comp)
}
