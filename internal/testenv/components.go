package testenv

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

func randomToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generating token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

func (e *Env) buildClient() error {
	cfg, err := clientcmd.BuildConfigFromFlags("", e.KubeconfigPath)
	if err != nil {
		return fmt.Errorf("loading admin kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = 500, 1000
	cfg.UserAgent = "kscale-testenv"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("building clientset: %w", err)
	}
	e.Config, e.Client = cfg, client
	return nil
}

func (e *Env) startEtcd(ctx context.Context) error {
	ports, err := freePorts(2)
	if err != nil {
		return err
	}
	client := fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	peer := fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	e.etcdURL = client
	args := []string{
		"--name=testenv", "--data-dir=" + e.path("etcd"),
		"--listen-client-urls=" + client, "--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer, "--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=testenv=" + peer, "--unsafe-no-fsync=true", "--log-level=warn",
	}
	return e.launch(ctx, binEtcd, args, func(ctx context.Context) error {
		body, err := httpGet(ctx, http.DefaultClient, client+"/health")
		if err == nil && !strings.Contains(body, `"health":"true"`) {
			err = fmt.Errorf("etcd unhealthy: %s", body)
		}
		return err
	})
}

func (e *Env) apiServerArgs() []string {
	f := e.files
	port := e.APIServerURL[strings.LastIndex(e.APIServerURL, ":")+1:]
	defaults := []string{
		"--etcd-servers=" + e.etcdURL,
		"--bind-address=127.0.0.1", "--secure-port=" + port,
		"--advertise-address=127.0.0.1", "--endpoint-reconciler-type=none",
		"--tls-cert-file=" + f.apiServing.Cert, "--tls-private-key-file=" + f.apiServing.Key,
		"--client-ca-file=" + f.caCert, "--token-auth-file=" + f.tokens,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + f.saPub, "--service-account-signing-key-file=" + f.saKey,
		"--service-cluster-ip-range=10.96.0.0/16", "--allow-privileged=true",
		// Without kube-controller-manager nobody creates the "default"
		// ServiceAccount, and this plugin would reject every pod.
		"--disable-admission-plugins=ServiceAccount",
		"--requestheader-client-ca-file=" + f.frontProxyCA,
		"--requestheader-allowed-names=front-proxy-client",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file=" + f.frontProxyClient.Cert,
		"--proxy-client-key-file=" + f.frontProxyClient.Key,
		"--profiling=false",
	}
	return mergeFlags(defaults, e.opts.APIServerFlags)
}

func (e *Env) startAPIServer(ctx context.Context) error {
	return e.launch(ctx, binAPIServer, e.apiServerArgs(), e.apiServerReady)
}

func (e *Env) apiServerReady(ctx context.Context) error {
	body, err := e.Client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
	if err != nil {
		return fmt.Errorf("kube-apiserver /readyz: %w: %s", err, body)
	}
	return nil
}

// StopAPIServer stops kube-apiserver, for tests of how clients ride out an
// outage. etcd and the other components keep running.
func (e *Env) StopAPIServer() {
	if p, ok := e.processes[binAPIServer]; ok {
		p.stop(15 * time.Second)
	}
}

// StartAPIServer starts kube-apiserver again after StopAPIServer, on the same
// address and with the same flags, and waits until it is ready.
func (e *Env) StartAPIServer(ctx context.Context) error {
	if p, ok := e.processes[binAPIServer]; ok && p.running() {
		return nil
	}
	return e.startAPIServer(ctx)
}

func (e *Env) componentArgs(port int) []string {
	return []string{
		"--kubeconfig=" + e.KubeconfigPath,
		"--authentication-kubeconfig=" + e.KubeconfigPath,
		"--authorization-kubeconfig=" + e.KubeconfigPath,
		"--leader-elect=false",
		"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", port),
		"--tls-cert-file=" + e.files.loopbackServer.Cert,
		"--tls-private-key-file=" + e.files.loopbackServer.Key,
	}
}

func (e *Env) startScheduler(ctx context.Context) error {
	ports, err := freePorts(1)
	if err != nil {
		return err
	}
	args := mergeFlags(e.componentArgs(ports[0]), e.opts.SchedulerFlags)
	return e.launch(ctx, binScheduler, args, e.healthCheck(ports[0]))
}

func (e *Env) startControllerManager(ctx context.Context) error {
	ports, err := freePorts(1)
	if err != nil {
		return err
	}
	defaults := append(e.componentArgs(ports[0]),
		"--controllers="+strings.Join(e.opts.Controllers, ","),
		"--service-account-private-key-file="+e.files.saKey,
		"--root-ca-file="+e.files.caCert,
		"--use-service-account-credentials=false",
	)
	args := mergeFlags(defaults, e.opts.ControllerManagerFlags)
	return e.launch(ctx, binControllerManager, args, e.healthCheck(ports[0]))
}

// healthCheck returns a check of a component's /healthz on loopback, with
// TLS verified against the environment's CA.
func (e *Env) healthCheck(port int) func(context.Context) error {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(e.CAData)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	url := fmt.Sprintf("https://127.0.0.1:%d/healthz", port)
	return func(ctx context.Context) error {
		_, err := httpGet(ctx, client, url)
		return err
	}
}

func httpGet(ctx context.Context, client *http.Client, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return string(body), fmt.Errorf("GET %s: %s: %s", url, resp.Status, body)
	}
	return string(body), nil
}
