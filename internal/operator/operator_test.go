package operator

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// freeAddress returns a local address nothing listens on.
func freeAddress(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// get fetches a path from addr, polling until it answers or the deadline.
func get(t *testing.T, addr, path string) (int, string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + path)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			return resp.StatusCode, string(body)
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: %v", path, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRunLeadsServesAndCleansUp(t *testing.T) {
	addr := freeAddress(t)
	reg := prometheus.NewRegistry()
	reg.MustRegister(prometheus.NewCounter(prometheus.CounterOpts{Name: "operator_test_total", Help: "test"}))
	var order []string
	leading := make(chan struct{})
	stop := make(chan struct{})
	comp := Component{
		Health: healthFunc(func() error { return errors.New("not yet") }),
		Lead: func(ctx context.Context) (*Term, error) {
			return &Term{
				Tasks: []Task{func(ctx context.Context) error {
					close(leading)
					<-stop
					order = append(order, "task")
					return nil
				}},
				Cleanup: []func(){func() { order = append(order, "first") }, func() { order = append(order, "second") }},
			}, nil
		},
	}
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), Config{Addresses: []Address{{Flag: "address", Address: addr}}, Gatherer: reg, NoSignals: true}, comp)
	}()
	<-leading
	if code, body := get(t, addr, "/metrics"); code != http.StatusOK || !strings.Contains(body, "operator_test_total") {
		t.Errorf("/metrics: %d %q", code, body)
	}
	if code, body := get(t, addr, "/health-check"); code != http.StatusInternalServerError || !strings.Contains(body, "not yet") {
		t.Errorf("/health-check: %d %q", code, body)
	}
	close(stop)
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got := strings.Join(order, ","); got != "task,second,first" {
		t.Errorf("order %s, want the task, then the cleanups in reverse", got)
	}
}

type healthFunc func() error

func (f healthFunc) Check() error { return f() }

func TestRunEndsOnFailure(t *testing.T) {
	boom := errors.New("boom")
	blockUntilDone := func(ctx context.Context) error { <-ctx.Done(); return nil }
	tests := []struct {
		name string
		comp Component
		want error
	}{
		{name: "replica task fails", comp: Component{Replica: []Task{blockUntilDone, func(context.Context) error { return boom }}}, want: boom},
		{name: "lead fails", comp: Component{Replica: []Task{blockUntilDone}, Lead: func(context.Context) (*Term, error) { return nil, boom }}, want: boom},
		{name: "term task fails", comp: Component{Lead: func(context.Context) (*Term, error) {
			return &Term{Tasks: []Task{blockUntilDone, func(context.Context) error { return boom }}}, nil
		}}, want: boom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Run(context.Background(), Config{NoSignals: true}, tt.comp)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Run: %v, want %v", err, tt.want)
			}
		})
	}
}

func TestRunRefusesBadConfig(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = busy.Close() }()
	task := []Task{func(context.Context) error { return nil }}
	tests := []struct {
		name string
		cfg  Config
		comp Component
		want string
	}{
		{name: "address in use", cfg: Config{Addresses: []Address{{Flag: "metrics-address", Address: busy.Addr().String()}}, Gatherer: prometheus.NewRegistry()},
			comp: Component{Replica: task}, want: "--metrics-address: "},
		{name: "no gatherer", cfg: Config{Addresses: []Address{{Flag: "address", Address: ":0"}}}, comp: Component{Replica: task}, want: "Gatherer"},
		{name: "nothing to run", want: "nothing to run"},
		{name: "election without client", cfg: Config{}, comp: Component{Lead: func(context.Context) (*Term, error) { return &Term{}, nil }}},
	}
	tests[3].cfg.Election.Enabled = true
	tests[3].want = "needs a client"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.NoSignals = true
			err := Run(context.Background(), tt.cfg, tt.comp)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Run: %v, want %q", err, tt.want)
			}
		})
	}
}

// TestRunPreparesBeforeLeading checks the order: replica tasks start,
// Prepare waits for them and adds a task, then the term runs.
func TestRunPreparesBeforeLeading(t *testing.T) {
	replicaStarted := make(chan struct{})
	var order []string
	extraRan := make(chan struct{})
	comp := Component{
		Replica: []Task{func(ctx context.Context) error { close(replicaStarted); <-ctx.Done(); return nil }},
		Prepare: func(ctx context.Context) ([]Task, error) {
			<-replicaStarted
			order = append(order, "prepare")
			return []Task{func(ctx context.Context) error { close(extraRan); <-ctx.Done(); return nil }}, nil
		},
		Lead: func(ctx context.Context) (*Term, error) {
			order = append(order, "lead")
			return &Term{Tasks: []Task{func(ctx context.Context) error { <-extraRan; return nil }}}, nil
		},
	}
	if err := Run(context.Background(), Config{NoSignals: true}, comp); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got := strings.Join(order, ","); got != "prepare,lead" {
		t.Errorf("order %s, want prepare,lead", got)
	}
	boom := errors.New("caches did not sync")
	err := Run(context.Background(), Config{NoSignals: true}, Component{
		Prepare: func(context.Context) ([]Task, error) { return nil, boom },
		Lead:    func(context.Context) (*Term, error) { t.Error("Lead ran after Prepare failed"); return &Term{}, nil },
	})
	if !errors.Is(err, boom) {
		t.Errorf("Run after a failing Prepare: %v, want %v", err, boom)
	}
}
