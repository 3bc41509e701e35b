package selfcert

import (
	"net"
	"slices"
	"testing"

	"github.com/spf13/pflag"
)

func TestFlagsConfig(t *testing.T) {
	var f Flags
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	f.AddFlags(fs, "--tls-cert-file")
	if f.Enabled() {
		t.Fatal("enabled without --self-signed-cert-secret")
	}
	if err := fs.Parse([]string{"--self-signed-cert-secret=tls", "--self-signed-cert-validity=48h"}); err != nil {
		t.Fatal(err)
	}
	if !f.Enabled() {
		t.Fatal("not enabled with --self-signed-cert-secret")
	}
	dns := ServiceDNSNames("svc", "ns")
	if !slices.Equal(dns, []string{"svc.ns.svc", "svc.ns.svc.cluster.local", "svc.ns", "svc"}) {
		t.Errorf("service names %v", dns)
	}
	c := f.Config(nil, "ns", "comp", dns, nil)
	if c.SecretName != "tls" || c.CommonName != "svc.ns.svc" || c.CertValidity.Hours() != 48 || c.CAValidity != DefaultCAValidity ||
		c.Labels["app.kubernetes.io/name"] != "kscale-comp" {
		t.Errorf("config %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	names, ips := HostSANs("10.0.0.1")
	if names != nil || len(ips) != 1 || !ips[0].Equal(net.ParseIP("10.0.0.1")) {
		t.Errorf("HostSANs(IP) = %v %v", names, ips)
	}
	if c := f.Config(nil, "ns", "comp", nil, ips); c.CommonName != "10.0.0.1" {
		t.Errorf("common name from the IP: %q", c.CommonName)
	}
	if names, ips := HostSANs("webhook.example"); !slices.Equal(names, []string{"webhook.example"}) || ips != nil {
		t.Errorf("HostSANs(name) = %v %v", names, ips)
	}
}
