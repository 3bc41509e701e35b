package clusterstate

import (
	"strings"
	"testing"
	"time"

	"github.com/kscale/kscale/internal/nodeautoscaler/backoff"
)

func TestRestoreBackoff(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	later := now.Add(time.Minute)
	entry := func(g string) backoff.Entry {
		return backoff.Entry{Group: g, Reason: backoff.Reason{Code: "x"}, Until: now.Add(time.Hour), Duration: time.Hour, LastFailed: now}
	}
	tests := []struct {
		name       string
		withAPI    bool
		state      backoff.State
		wantErr    string
		backedOff  []string
		notBacked  []string
		wantAPILen int
	}{
		{name: "both policies", withAPI: true, state: backoff.State{ScaleUp: []backoff.Entry{entry("a")}, APIErrors: []backoff.Entry{entry("b")}},
			backedOff: []string{"a", "b"}, notBacked: []string{"c"}, wantAPILen: 1},
		{name: "api entries join the main policy when there is no API-error policy",
			state: backoff.State{ScaleUp: []backoff.Entry{entry("a")}, APIErrors: []backoff.Entry{entry("a"), entry("b")}}, backedOff: []string{"a", "b"}},
		{name: "an invalid api entry changes nothing", withAPI: true,
			state:   backoff.State{ScaleUp: []backoff.Entry{entry("a")}, APIErrors: []backoff.Entry{{Group: ""}}},
			wantErr: "entry 0: group", notBacked: []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Backoff: backoff.NewExponential(time.Minute, time.Hour, 3*time.Hour)}
			if tt.withAPI {
				cfg.APIErrorBackoff = backoff.NewExponential(time.Minute, time.Hour, 3*time.Hour)
			}
			r := New(cfg)
			err := r.RestoreBackoff(tt.state)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			for _, g := range tt.backedOff {
				if ok, _ := r.IsSafeToScaleUp(g, later); ok {
					t.Errorf("group %s not backed off", g)
				}
			}
			for _, g := range tt.notBacked {
				if ok, _ := r.IsSafeToScaleUp(g, later); !ok {
					t.Errorf("group %s backed off", g)
				}
			}
			if got := len(r.BackoffState().APIErrors); got != tt.wantAPILen {
				t.Errorf("%d API-error entries exported, want %d", got, tt.wantAPILen)
			}
		})
	}
}
