package live_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/nodeautoscaler/backoff"
	"github.com/kscale/kscale/internal/nodeautoscaler/clusterstate"
	"github.com/kscale/kscale/internal/nodeautoscaler/live"
)

func TestParseBackoff(t *testing.T) {
	tests := []struct {
		name, doc, wantErr string
	}{
		{"valid", `{"version":1,"state":{"scaleUp":[{"group":"a","reason":{"code":"timeout"},"until":"2026-01-01T00:10:00Z","duration":600000000000,"lastFailed":"2026-01-01T00:00:00Z"}]}}`, ""},
		{"empty", ``, "empty document"},
		{"not json", `{`, "decoding backoff.json"},
		{"unknown field", `{"version":1,"state":{},"extra":1}`, `unknown field "extra"`},
		{"wrong version", `{"version":2,"state":{}}`, "version: got 2"},
		{"trailing data", `{"version":1,"state":{}} {}`, "unexpected data"},
		{"bad entry", `{"version":1,"state":{"scaleUp":[{"reason":{"code":"x"}}]}}`, "state.scaleUp: restoring backoff: entry 0: group"},
		{"bad api entry", `{"version":1,"state":{"scaleUp":[],"apiErrors":[{"group":"a","duration":-1}]}}`, "state.apiErrors"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := live.ParseBackoff([]byte(tt.doc))
			if tt.wantErr == "" && err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestEncodeBackoffRoundTrip: what EncodeBackoff writes (the live store
// and the offline world use it) ParseBackoff reads back unchanged.
func TestEncodeBackoffRoundTrip(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	in := backoff.State{
		ScaleUp:   []backoff.Entry{{Group: "a", Reason: backoff.Reason{Code: "timeout"}}},
		APIErrors: []backoff.Entry{{Group: "b", Reason: backoff.Reason{Code: "Throttling"}, Until: at.Add(time.Minute), Duration: time.Minute, LastFailed: at}},
	}
	data, err := live.EncodeBackoff(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := live.ParseBackoff(data)
	if err != nil {
		t.Fatalf("parsing %s: %v", data, err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip changed the state:\n%+v\n%+v", in, out)
	}
}

func FuzzParseBackoff(f *testing.F) {
	f.Add([]byte(`{"version":1,"state":{"scaleUp":[{"group":"a","reason":{"code":"timeout"}}]}}`))
	f.Add([]byte(`{"version":1,"state":{"scaleUp":null,"apiErrors":[{"group":"b","until":"2026-01-01T00:00:00Z"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := live.ParseBackoff(data)
		if err != nil {
			return
		}
		// Whatever parses restores into either policy.
		if err := backoff.NewInfinite().Restore(st.ScaleUp); err != nil {
			t.Fatalf("parsed state does not restore: %v", err)
		}
		if err := backoff.NewExponential(time.Minute, time.Hour, time.Hour).Restore(st.APIErrors); err != nil {
			t.Fatalf("parsed state does not restore: %v", err)
		}
	})
}

// backoffRegistry is the autoscaler's backoff registry as a new leader
// holds it; fail backs a group off as the loop does after a stock-out.
type backoffRegistry struct{ reg *clusterstate.Registry }

func newBackoffRegistry() *backoffRegistry {
	return &backoffRegistry{reg: clusterstate.New(clusterstate.Config{Backoff: backoff.NewInfinite()})}
}

func (r *backoffRegistry) fail(group string, now time.Time) {
	r.reg.RegisterFailedScaleUp(group, backoff.Reason{Code: "InsufficientInstanceCapacity"}, now)
}
func (r *backoffRegistry) RestoreBackoff(s backoff.State) error { return r.reg.RestoreBackoff(s) }
func (r *backoffRegistry) backedOff(group string, now time.Time) bool {
	ok, _ := r.reg.IsSafeToScaleUp(group, now)
	return !ok
}

func TestBackoffStoreSurvivesANewLeader(t *testing.T) {
	ctx := t.Context()
	ns := "backoff-persist"
	createNamespace(t, ns)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	first := newBackoffRegistry()
	store, err := live.NewBackoffStore(env.Client, ns)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Restore(ctx, first); err != nil {
		t.Fatal(err)
	}
	first.fail("spot", now)
	if err := store.SaveBackoff(ctx, first.reg.BackoffState()); err != nil {
		t.Fatal(err)
	}

	second := newBackoffRegistry()
	store2, err := live.NewBackoffStore(env.Client, ns)
	if err != nil {
		t.Fatal(err)
	}
	if err := store2.Restore(ctx, second); err != nil {
		t.Fatal(err)
	}
	if !second.backedOff("spot", now.Add(24*time.Hour)) {
		t.Error("the new leader forgot that group spot is backed off")
	}
	if second.backedOff("on-demand", now) {
		t.Error("the new leader backed off a group that never failed")
	}
}

func TestBackoffStoreIgnoresACorruptDocument(t *testing.T) {
	ctx := t.Context()
	ns := "backoff-corrupt"
	createNamespace(t, ns)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: live.BackoffConfigMapName, Namespace: ns},
		Data: map[string]string{live.BackoffConfigMapKey: `{"version":1,"state":{"scaleUp":[{"group":""}]}}`}}
	if _, err := env.Client.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	r := newBackoffRegistry()
	store, err := live.NewBackoffStore(env.Client, ns)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Restore(ctx, r); err != nil {
		t.Fatalf("a corrupt document must not stop the autoscaler: %v", err)
	}
	if len(r.reg.BackoffState().ScaleUp) != 0 {
		t.Fatalf("a corrupt document was half-restored: %+v", r.reg.BackoffState())
	}
	// The next save replaces the corrupt document with a valid one.
	if err := store.SaveBackoff(ctx, r.reg.BackoffState()); err != nil {
		t.Fatal(err)
	}
	got, err := env.Client.CoreV1().ConfigMaps(ns).Get(ctx, live.BackoffConfigMapName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := live.ParseBackoff([]byte(got.Data[live.BackoffConfigMapKey])); err != nil {
		t.Errorf("document after the save: %v", err)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(got.Data[live.BackoffConfigMapKey]), &doc); err != nil || doc["version"] != float64(1) {
		t.Errorf("document %v (%v)", doc, err)
	}
}
