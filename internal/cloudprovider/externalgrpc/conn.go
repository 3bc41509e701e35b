package externalgrpc

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

// Dial opens the (lazy) connection the cloud config describes: mutual TLS
// with cert, key and cacert, verifying the server's certificate for the
// address's host, or plain text without them. It reads the files now, so a
// missing or malformed one fails here, naming its key.
func Dial(c *CloudConfig) (*grpc.ClientConn, error) {
	creds := insecure.NewCredentials()
	if c.Cert != "" {
		tc, err := clientTLS(c)
		if err != nil {
			return nil, err
		}
		creds = credentials.NewTLS(tc)
	}
	// passthrough: the address goes to the dialer as it is, as upstream's
	// grpc.Dial does, rather than through a DNS resolver.
	conn, err := grpc.NewClient("passthrough:///"+c.Address, grpc.WithTransportCredentials(creds))
	if err != nil {
		return nil, fmt.Errorf("connecting to the external gRPC cloud provider at %s: %w", c.Address, err)
	}
	return conn, nil
}

// clientTLS loads the client's key pair and the CA that signs the server.
func clientTLS(c *CloudConfig) (*tls.Config, error) {
	pair, err := tls.LoadX509KeyPair(c.Cert, c.Key)
	if err != nil {
		return nil, fmt.Errorf("cert, key: loading the client key pair: %w", err)
	}
	caPEM, err := os.ReadFile(c.Cacert)
	if err != nil {
		return nil, fmt.Errorf("cacert: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("cacert: %s holds no PEM certificate", c.Cacert)
	}
	host, _, err := net.SplitHostPort(c.Address)
	if err != nil {
		return nil, fmt.Errorf("address: %w", err)
	}
	return &tls.Config{ServerName: host, Certificates: []tls.Certificate{pair}, RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}
