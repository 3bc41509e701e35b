package grpcexpander_test

import (
	"context"
	"crypto/tls"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kscale/kscale/internal/custommetrics/testpki"
	"github.com/kscale/kscale/internal/grpctest"
	"github.com/kscale/kscale/internal/nodeautoscaler/expander"
	"github.com/kscale/kscale/internal/nodeautoscaler/expander/grpcexpander"
	"github.com/kscale/kscale/internal/nodeautoscaler/expander/grpcexpander/protos"
)

// server is an expander of ours: it prefers the groups whose template
// node carries the label "tier=cheap", and can fail, hang or answer
// unknown groups.
type server struct {
	protos.UnimplementedExpanderServer
	mu      sync.Mutex
	mode    string
	lastReq *protos.BestOptionsRequest
}

func (s *server) BestOptions(ctx context.Context, req *protos.BestOptionsRequest) (*protos.BestOptionsResponse, error) {
	s.mu.Lock()
	s.lastReq = req
	mode := s.mode
	s.mu.Unlock()
	switch mode {
	case "fail":
		return nil, status.Error(codes.Internal, "expander broke")
	case "hang":
		<-ctx.Done()
		return nil, status.FromContextError(ctx.Err()).Err()
	case "unknown":
		return &protos.BestOptionsResponse{Options: []*protos.Option{{NodeGroupId: "nope"}}}, nil
	}
	out := &protos.BestOptionsResponse{}
	for _, o := range req.GetOptions() {
		var n corev1.Node
		if err := n.Unmarshal(req.GetNodeBytesMap()[o.GetNodeGroupId()]); err != nil {
			return nil, status.Error(codes.InvalidArgument, err.Error())
		}
		if n.Labels["tier"] == "cheap" {
			out.Options = append(out.Options, o)
		}
	}
	return out, nil
}

func (s *server) setMode(m string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mode = m
}

// start serves an expander over TLS and returns a filter connected by
// --grpc-expander-url and --grpc-expander-cert.
func start(t *testing.T) (*server, *grpcexpander.Filter) {
	t.Helper()
	ca := testpki.NewCA(t, "expander-ca")
	srv := &server{}
	addr := grpctest.Serve(t, &tls.Config{Certificates: []tls.Certificate{ca.Serving(t, []string{"localhost"}, nil)}, MinVersion: tls.VersionTLS12},
		func(g *grpc.Server) { protos.RegisterExpanderServer(g, srv) })
	certFile := testpki.WriteFile(t, t.TempDir(), "ca.crt", ca.PEM)
	_, port, _ := strings.Cut(addr, ":")
	conn, err := grpcexpander.Dial("localhost:"+port, certFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	f, err := grpcexpander.New(grpcexpander.Config{Client: protos.NewExpanderClient(conn), Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return srv, f
}

func option(group, tier string, pods int) expander.Option {
	o := expander.Option{Group: group, NodeCount: 1,
		Template: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "template-" + group, Labels: map[string]string{"tier": tier}}}}
	for i := range pods {
		o.Pods = append(o.Pods, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: group + "-pod-" + string(rune('a'+i)), Namespace: "default"}})
	}
	return o
}

func groupsOf(opts []expander.Option) []string {
	var out []string
	for _, o := range opts {
		out = append(out, o.Group)
	}
	return out
}

func TestBestOptions(t *testing.T) {
	srv, f := start(t)
	opts := []expander.Option{option("a", "dear", 1), option("b", "cheap", 2), option("c", "cheap", 1)}
	tests := []struct {
		mode string
		want []string
	}{
		{"", []string{"b", "c"}},
		{"fail", []string{"a", "b", "c"}},
		{"hang", []string{"a", "b", "c"}},
		{"unknown", []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		t.Run("mode "+tt.mode, func(t *testing.T) {
			srv.setMode(tt.mode)
			if got := groupsOf(f.BestOptions(t.Context(), opts)); !slices.Equal(got, tt.want) {
				t.Errorf("best = %v, want %v", got, tt.want)
			}
		})
	}
	srv.mu.Lock()
	req := srv.lastReq
	srv.mu.Unlock()
	if n := len(req.GetOptions()[1].GetPodBytes()); n != 2 {
		t.Fatalf("option b carried %d pods, want 2", n)
	}
	var pod corev1.Pod
	if err := pod.Unmarshal(req.GetOptions()[1].GetPodBytes()[0]); err != nil || pod.Name != "b-pod-a" {
		t.Errorf("decoded pod %q, %v; want b-pod-a", pod.Name, err)
	}
}

func TestChainUsesTheServer(t *testing.T) {
	_, f := start(t)
	c, err := expander.NewChain([]string{"grpc", "most-pods"}, expander.Sources{GRPC: f}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	best, ok := c.Best(t.Context(), []expander.Option{option("a", "dear", 5), option("b", "cheap", 2), option("c", "cheap", 1)})
	if !ok || best.Group != "b" {
		t.Errorf("best = %s, want b (cheap by the server, then most pods)", best.Group)
	}
	if _, err := expander.NewChain([]string{"grpc"}, expander.Sources{}, nil); err == nil {
		t.Error("grpc expander without a client: want an error")
	}
}

func TestDialRefusesPlainText(t *testing.T) {
	for _, tt := range []struct{ url, cert, want string }{
		{"", "/ca.crt", "--grpc-expander-url"},
		{"localhost:1", "", "--grpc-expander-cert"},
		{"localhost:1", "/nonexistent/ca.crt", "--grpc-expander-cert"},
	} {
		if _, err := grpcexpander.Dial(tt.url, tt.cert); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Dial(%q, %q) = %v, want an error naming %s", tt.url, tt.cert, err, tt.want)
		}
	}
}
