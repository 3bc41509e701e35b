package leaderelection_test

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/leaderelection"
	"github.com/kscale/kscale/internal/testenv"
)

// TestRun runs two candidates on one Lease against a real API server: one
// leads at a time, and the second takes over once the first releases.
func TestRun(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	ctx := t.Context()
	le := leaderelection.Config{Enabled: true, Namespace: "default", Name: "vpa-recommender-test",
		LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 200 * time.Millisecond}
	leading := make(chan string, 2)
	start := func(id string) (context.CancelFunc, chan error) {
		cctx, cancel := context.WithCancel(ctx)
		l := le
		l.Identity = id
		done := make(chan error, 1)
		go func() {
			done <- leaderelection.Run(cctx, env.Client, l, func(ctx context.Context) {
				leading <- id
				<-ctx.Done()
			})
		}()
		return cancel, done
	}
	stopA, doneA := start("a")
	if got := <-leading; got != "a" {
		t.Fatalf("first leader = %s, want a", got)
	}
	stopB, doneB := start("b")
	defer func() {
		stopB()
		if err := <-doneB; err != nil {
			t.Errorf("Run(b) = %v", err)
		}
	}()
	lease, err := env.Client.CoordinationV1().Leases("default").Get(ctx, le.Name, metav1.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity != "a" {
		t.Fatalf("lease holder = %v, %v; want a", lease.Spec.HolderIdentity, err)
	}
	select {
	case id := <-leading:
		t.Fatalf("%s started leading while a held the lease", id)
	default:
	}
	stopA()
	if err := <-doneA; err != nil {
		t.Fatalf("Run(a) after cancel = %v", err)
	}
	select {
	case got := <-leading:
		if got != "b" {
			t.Fatalf("second leader = %s, want b", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("b never took over the released lease")
	}
}

func TestDefaultIdentityIsUnique(t *testing.T) {
	a, b := leaderelection.Config{Enabled: true}, leaderelection.Config{Enabled: true}
	if err := a.Default(); err != nil {
		t.Fatal(err)
	}
	if err := b.Default(); err != nil {
		t.Fatal(err)
	}
	if a.Identity == "" || a.Identity == b.Identity {
		t.Errorf("identities %q and %q: want two distinct non-empty ones", a.Identity, b.Identity)
	}
	if off := (leaderelection.Config{}); off.Default() != nil || off.Identity != "" {
		t.Error("a disabled election needs no identity")
	}
}

// TestRunReleasesAfterWork checks that work's last steps run while this
// process still holds the Lease, and that Run returns only after work did.
func TestRunReleasesAfterWork(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	le := leaderelection.Config{Enabled: true, Namespace: "default", Name: "release-after-work", Identity: "a",
		LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 200 * time.Millisecond}
	leading := make(chan struct{})
	var holderAtEnd string
	workReturned := false
	done := make(chan error, 1)
	go func() {
		done <- leaderelection.Run(ctx, env.Client, le, func(ctx context.Context) {
			close(leading)
			<-ctx.Done()
			// The last step of the work: the Lease is still ours.
			lease, err := env.Client.CoordinationV1().Leases("default").Get(context.WithoutCancel(ctx), le.Name, metav1.GetOptions{})
			if err == nil && lease.Spec.HolderIdentity != nil {
				holderAtEnd = *lease.Spec.HolderIdentity
			}
			workReturned = true
		})
	}()
	<-leading
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v", err)
	}
	if !workReturned {
		t.Fatal("Run returned before work did")
	}
	if holderAtEnd != "a" {
		t.Errorf("holder during work's last step = %q, want a", holderAtEnd)
	}
	lease, err := env.Client.CoordinationV1().Leases("default").Get(t.Context(), le.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if h := lease.Spec.HolderIdentity; h != nil && *h != "" {
		t.Errorf("holder after Run = %q, want the Lease released", *h)
	}
}
