package promreg

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestRegister(t *testing.T) {
	newCounter := func() prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Name: "things_total", Help: "Things."})
	}
	tests := []struct {
		name     string
		reg      func() prometheus.Registerer
		wantErr  string
		wantSeen int
	}{
		{name: "registers every collector", reg: func() prometheus.Registerer { return prometheus.NewRegistry() }, wantSeen: 1},
		{name: "nil registers nothing", reg: func() prometheus.Registerer { return nil }},
		{name: "a duplicate names the component", reg: func() prometheus.Registerer {
			r := prometheus.NewRegistry()
			r.MustRegister(newCounter())
			return r
		}, wantErr: "registering widget metrics"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := tt.reg()
			err := Register(reg, "widget", newCounter())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g, ok := reg.(prometheus.Gatherer); ok {
				mfs, err := g.Gather()
				if err != nil || len(mfs) != tt.wantSeen {
					t.Errorf("gathered %d families (%v), want %d", len(mfs), err, tt.wantSeen)
				}
			}
		})
	}
}
