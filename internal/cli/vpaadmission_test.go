package cli

import (
	"net"
	"testing"

	"github.com/kscale/kscale/internal/custommetrics/testpki"
)

func TestVPAAdmissionFlagDefaults(t *testing.T) {
	cmd := newVPAAdmissionCommand()
	expectDefaults(t, cmd.Flags().Lookup, map[string]string{
		"port":                         "8000",
		"status-lease-name":            "vpa-admission-controller",
		"max-allowed-cpu-boost":        "0",
		"status-lease-namespace":       "",
		"tls-cert-file":                "/etc/tls-certs/serverCert.pem",
		"tls-private-key":              "/etc/tls-certs/serverKey.pem",
		"client-ca-file":               "/etc/tls-certs/caCert.pem",
		"webhook-service":              "vpa-webhook",
		"webhook-timeout-seconds":      "30",
		"webhook-failure-policy-fail":  "false",
		"register-webhook":             "true",
		"register-by-url":              "false",
		"status-lease-update-interval": "10s",
		"min-tls-version":              "tls1_2",
		"kube-api-qps":                 "50",
		"kube-api-burst":               "100",
	})
}

func TestVPAAdmissionBadFlags(t *testing.T) {
	certs := testpki.WriteServing(t, nil, []net.IP{net.IPv4(127, 0, 0, 1)})
	tls := []string{"--tls-cert-file=" + certs.Cert, "--tls-private-key=" + certs.Key, "--client-ca-file=" + certs.CA}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--tls-cert-file="}, "--tls-cert-file"},
		{append([]string{"--min-tls-version=tls1_0"}, tls...), "--min-tls-version"},
		{append([]string{"--webhook-timeout-seconds=31"}, tls...), "--webhook-timeout-seconds"},
		{append([]string{"--register-by-url"}, tls...), "--webhook-address"},
		{[]string{"--tls-cert-file=" + certs.Cert, "--tls-private-key=" + certs.Key, "--client-ca-file="}, "--client-ca-file"},
		{append([]string{"--status-lease-update-interval=0s"}, tls...), "--status-lease-update-interval"},
		{append([]string{"--tls-ciphers=TLS_RSA_WITH_RC4_128_SHA"}, tls...), "--tls-ciphers"},
		{append([]string{"--webhook-labels=novalue"}, tls...), "--webhook-labels"},
		{append([]string{"--self-signed-cert-secret=tls"}, tls...), "--self-signed-cert-secret: excludes --tls-cert-file"},
		{[]string{"--self-signed-cert-secret=tls", "--self-signed-cert-validity=1m"}, "--self-signed-cert-validity: must be at least"},
		{[]string{"--self-signed-cert-secret=tls", "--self-signed-ca-validity=24h"}, "--self-signed-ca-validity: must be at least --self-signed-cert-validity"},
		{[]string{"--self-signed-cert-secret=tls", "--register-by-url", "--webhook-port=443"}, "--webhook-address"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			expectUsageError(t, newVPAAdmissionCommand(), tt.args, tt.want)
		})
	}
}
