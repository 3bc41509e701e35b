// Package grpctest serves gRPC services on a loopback port for the length
// of a test: the external gRPC cloud provider's and the gRPC expander's
// servers of ours.
package grpctest

import (
	"crypto/tls"
	"net"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// Serve starts a gRPC server with the options, over TLS when tc is set,
// lets register add its services, serves until the test ends and returns
// the address (127.0.0.1:port).
func Serve(tb testing.TB, tc *tls.Config, register func(*grpc.Server), opts ...grpc.ServerOption) string {
	tb.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("listening: %v", err)
	}
	if tc != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(tc)))
	}
	g := grpc.NewServer(opts...)
	register(g)
	done := make(chan error, 1)
	go func() { done <- g.Serve(lis) }()
	tb.Cleanup(func() {
		g.Stop()
		if err := <-done; err != nil {
			tb.Errorf("serving gRPC: %v", err)
		}
	})
	return lis.Addr().String()
}
