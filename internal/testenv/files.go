package testenv

import (
	"fmt"
	"net"
	"os"
	"strings"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeFiles creates the PKI, the token file and the admin kubeconfig.
func (e *Env) writeFiles() error {
	p, err := newPKI()
	if err != nil {
		return err
	}
	e.pki = p
	e.CAData = p.caPEM
	f := &e.files
	f.caCert = e.path("ca.crt")
	f.frontProxyCA = e.path("front-proxy-ca.crt")
	if err := writeCertPEM(f.caCert, p.caCert); err != nil {
		return err
	}
	if err := writeCertPEM(f.frontProxyCA, p.frontProxyCA); err != nil {
		return err
	}
	if err := e.issueCerts(); err != nil {
		return err
	}
	if f.saKey, f.saPub, err = writeServiceAccountKey(e.Dir); err != nil {
		return err
	}
	return e.writeTokens()
}

func (e *Env) issueCerts() error {
	p, f := e.pki, &e.files
	loopback := []net.IP{net.ParseIP("127.0.0.1"), net.IPv6loopback}
	var err error
	f.apiServing, err = issue(p.caCert, p.caKey, certRequest{
		commonName: "kube-apiserver",
		dnsNames: append([]string{"localhost", "kube-apiserver", "kubernetes", "kubernetes.default",
			"kubernetes.default.svc", "kubernetes.default.svc.cluster.local"}, e.opts.ServingDNSNames...),
		ips: append(append([]net.IP{}, loopback...), e.opts.ServingIPs...),
	}, e.Dir, "apiserver")
	if err != nil {
		return err
	}
	f.loopbackServer, err = issue(p.caCert, p.caKey, certRequest{
		commonName: "localhost", dnsNames: []string{"localhost"}, ips: loopback,
	}, e.Dir, "loopback-serving")
	if err != nil {
		return err
	}
	f.frontProxyClient, err = issue(p.frontProxyCA, p.frontProxyCAKey, certRequest{
		commonName: "front-proxy-client", client: true,
	}, e.Dir, "front-proxy-client")
	return err
}

// writeTokens writes the static token file with the admin and extra users
// and builds the admin client configuration and kubeconfig.
func (e *Env) writeTokens() error {
	adminToken, err := randomToken()
	if err != nil {
		return err
	}
	users := append([]User{{Name: AdminUser, Token: adminToken, Groups: []string{"system:masters"}}}, e.opts.Users...)
	var b strings.Builder
	for _, u := range users {
		fmt.Fprintf(&b, "%s,%s,%s,%q\n", u.Token, u.Name, u.Name, strings.Join(u.Groups, ","))
	}
	e.files.tokens = e.path("tokens.csv")
	if err := os.WriteFile(e.files.tokens, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("writing token file: %w", err)
	}
	ports, err := freePorts(1)
	if err != nil {
		return err
	}
	e.APIServerURL = fmt.Sprintf("https://127.0.0.1:%d", ports[0])
	e.KubeconfigPath = e.path("admin.kubeconfig")
	kubeconfig := clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"testenv": {Server: e.APIServerURL, CertificateAuthorityData: e.CAData}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{"admin": {Token: adminToken}},
		Contexts:       map[string]*clientcmdapi.Context{"testenv": {Cluster: "testenv", AuthInfo: "admin"}},
		CurrentContext: "testenv",
	}
	if err := clientcmd.WriteToFile(kubeconfig, e.KubeconfigPath); err != nil {
		return fmt.Errorf("writing admin kubeconfig: %w", err)
	}
	return e.buildClient()
}

// mergeFlags returns defaults with each "--name=value" in extra replacing the
// default of the same name, and extra flags with new names appended in order.
func mergeFlags(defaults, extra []string) []string {
	name := func(flag string) string {
		n, _, _ := strings.Cut(flag, "=")
		return n
	}
	override := map[string]string{}
	for _, f := range extra {
		override[name(f)] = f
	}
	out := make([]string, 0, len(defaults)+len(extra))
	used := map[string]bool{}
	for _, f := range defaults {
		if o, ok := override[name(f)]; ok {
			if !used[name(f)] {
				out = append(out, o)
				used[name(f)] = true
			}
			continue
		}
		out = append(out, f)
	}
	for _, f := range extra {
		if !used[name(f)] {
			out = append(out, f)
			used[name(f)] = true
		}
	}
	return out
}
