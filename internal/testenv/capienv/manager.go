package capienv

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/kscale/kscale/internal/cloudprovider/clusterapi/clusterapitest"
	"github.com/kscale/kscale/internal/testenv"
)

// webhookManifests is the module's webhook configuration, generated from
// the manager's webhook markers.
const webhookManifests = "core/config/webhook/manifests.yaml"

// webhookPrefix starts the names of the webhook configurations this
// package registers.
const webhookPrefix = "capi-"

// Manager is the real Cluster API core controller manager running on a
// management cluster.
type Manager struct {
	env         *testenv.Env
	bin         string
	webhookPort int
	healthPort  int
}

// StartManager starts the manager on env (which has Install's CRDs) and
// registers its mutating and validating webhooks with env's kube-apiserver,
// served on loopback with a certificate of env's CA. It stops with env.
func StartManager(ctx context.Context, env *testenv.Env) (*Manager, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	ports, err := testenv.FreePorts(2)
	if err != nil {
		return nil, err
	}
	m := &Manager{env: env, bin: bin, webhookPort: ports[0], healthPort: ports[1]}
	if err := m.Start(ctx); err != nil {
		return nil, err
	}
	if err := m.registerWebhooks(ctx); err != nil {
		return nil, err
	}
	return m, nil
}

// Start starts the manager process (again, after Stop) and waits until
// its webhook server is ready.
func (m *Manager) Start(ctx context.Context) error {
	dir, cert, key := m.env.LoopbackServingCert()
	args := []string{
		"--kubeconfig=" + m.env.KubeconfigPath,
		"--leader-elect=false",
		"--namespace=",
		fmt.Sprintf("--webhook-port=%d", m.webhookPort),
		"--webhook-cert-dir=" + dir, "--webhook-cert-name=" + cert, "--webhook-key-name=" + key,
		fmt.Sprintf("--health-addr=127.0.0.1:%d", m.healthPort),
		// No metrics endpoint: the tests read objects, not the manager's metrics.
		"--diagnostics-address=0",
		"--sync-period=1m",
		"--v=2",
	}
	err := m.env.StartComponent(ctx, testenv.Component{Name: ManagerName, Binary: m.bin, Args: args,
		Ready: testenv.HTTPReady(fmt.Sprintf("http://127.0.0.1:%d/readyz", m.healthPort))})
	if err != nil {
		return fmt.Errorf("starting %s: %w: %s", ManagerName, err, m.env.Logs(ManagerName))
	}
	return nil
}

// Stop stops the manager process; the webhooks stay registered, so
// writes they cover fail until Start.
func (m *Manager) Stop() { m.env.StopComponent(ManagerName) }

// Logs returns the tail of the manager's log.
func (m *Manager) Logs() string { return m.env.Logs(ManagerName) }

// registerWebhooks creates the module's webhook configurations with each
// webhook's service reference replaced by the manager's loopback URL.
func (m *Manager) registerWebhooks(ctx context.Context) error {
	dir, err := testenv.ModuleDir(ctx, clusterapitest.Module, clusterapitest.Version)
	if err != nil {
		return errNoModule(err)
	}
	raw, err := os.ReadFile(moduleFile(dir, webhookManifests))
	if err != nil {
		return errNoModule(err)
	}
	mutating, validating, err := decodeWebhooks(raw)
	if err != nil {
		return err
	}
	api := m.env.Client.AdmissionregistrationV1()
	for i := range mutating {
		c := &mutating[i]
		c.Name = webhookPrefix + c.Name
		for j := range c.Webhooks {
			c.Webhooks[j].ClientConfig = m.clientConfig(c.Webhooks[j].ClientConfig)
		}
		if _, err := api.MutatingWebhookConfigurations().Create(ctx, c, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("registering webhook configuration %s: %w", c.Name, err)
		}
	}
	for i := range validating {
		c := &validating[i]
		c.Name = webhookPrefix + c.Name
		for j := range c.Webhooks {
			c.Webhooks[j].ClientConfig = m.clientConfig(c.Webhooks[j].ClientConfig)
		}
		if _, err := api.ValidatingWebhookConfigurations().Create(ctx, c, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("registering webhook configuration %s: %w", c.Name, err)
		}
	}
	return nil
}

// clientConfig points a webhook at the manager's loopback server.
func (m *Manager) clientConfig(in admissionregistrationv1.WebhookClientConfig) admissionregistrationv1.WebhookClientConfig {
	path := "/"
	if in.Service != nil && in.Service.Path != nil {
		path = *in.Service.Path
	}
	url := fmt.Sprintf("https://127.0.0.1:%d%s", m.webhookPort, path)
	return admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: m.env.CAData}
}

// decodeWebhooks reads a multi-document manifest of webhook
// configurations, strictly.
func decodeWebhooks(raw []byte) ([]admissionregistrationv1.MutatingWebhookConfiguration, []admissionregistrationv1.ValidatingWebhookConfiguration, error) {
	var mutating []admissionregistrationv1.MutatingWebhookConfiguration
	var validating []admissionregistrationv1.ValidatingWebhookConfiguration
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", webhookManifests, err)
		}
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			return nil, nil, fmt.Errorf("decoding %s: %w", webhookManifests, err)
		}
		switch meta.Kind {
		case "":
			continue
		case "MutatingWebhookConfiguration":
			var c admissionregistrationv1.MutatingWebhookConfiguration
			if err := yaml.UnmarshalStrict(doc, &c); err != nil {
				return nil, nil, fmt.Errorf("decoding %s: %w", webhookManifests, err)
			}
			mutating = append(mutating, c)
		case "ValidatingWebhookConfiguration":
			var c admissionregistrationv1.ValidatingWebhookConfiguration
			if err := yaml.UnmarshalStrict(doc, &c); err != nil {
				return nil, nil, fmt.Errorf("decoding %s: %w", webhookManifests, err)
			}
			validating = append(validating, c)
		default:
			return nil, nil, fmt.Errorf("decoding %s: unexpected kind %q", webhookManifests, meta.Kind)
		}
	}
	return mutating, validating, nil
}
