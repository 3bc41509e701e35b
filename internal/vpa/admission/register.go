package admission

import (
	"context"
	"fmt"
	"os"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// WebhookConfiguration builds the MutatingWebhookConfiguration for cfg with
// caBundle as the CA the API server trusts.
func WebhookConfiguration(cfg Config, caBundle []byte) *admissionregistrationv1.MutatingWebhookConfiguration {
	failure := admissionregistrationv1.Ignore
	if cfg.FailurePolicyFail {
		failure = admissionregistrationv1.Fail
	}
	none := admissionregistrationv1.SideEffectClassNone
	timeout := cfg.TimeoutSeconds
	cc := admissionregistrationv1.WebhookClientConfig{CABundle: caBundle}
	if cfg.RegisterByURL {
		u := cfg.WebhookURL
		cc.URL = &u
	} else {
		path, port := "/", cfg.ServicePort
		cc.Service = &admissionregistrationv1.ServiceReference{Namespace: cfg.Namespace, Name: cfg.ServiceName, Path: &path, Port: &port}
	}
	return &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: cfg.ConfigurationName, Labels: cfg.WebhookLabels},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    DefaultWebhookName,
			AdmissionReviewVersions: []string{"v1"},
			ClientConfig:            cc,
			Rules: []admissionregistrationv1.RuleWithOperations{
				rule([]admissionregistrationv1.OperationType{admissionregistrationv1.Create}, "", "v1", "pods"),
				rule([]admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
					"autoscaling.k8s.io", "*", "verticalpodautoscalers"),
			},
			FailurePolicy:     &failure,
			SideEffects:       &none,
			TimeoutSeconds:    &timeout,
			NamespaceSelector: namespaceSelector(cfg),
		}},
	}
}

func rule(ops []admissionregistrationv1.OperationType, group, version, resource string) admissionregistrationv1.RuleWithOperations {
	return admissionregistrationv1.RuleWithOperations{Operations: ops, Rule: admissionregistrationv1.Rule{
		APIGroups: []string{group}, APIVersions: []string{version}, Resources: []string{resource},
	}}
}

func namespaceSelector(cfg Config) *metav1.LabelSelector {
	const key = "kubernetes.io/metadata.name"
	switch {
	case cfg.VPAObjectNamespace != "":
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: key, Operator: metav1.LabelSelectorOpIn, Values: []string{cfg.VPAObjectNamespace}}}}
	case len(cfg.IgnoredNamespaces) > 0:
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: key, Operator: metav1.LabelSelectorOpNotIn, Values: cfg.IgnoredNamespaces}}}
	default:
		return &metav1.LabelSelector{}
	}
}

// Register creates the MutatingWebhookConfiguration, or updates the
// existing one of the same name in place. Updating (rather than deleting
// and re-creating, as upstream does) lets several replicas register at
// start-up without a window in which no webhook is configured.
func Register(ctx context.Context, c client.Client, cfg Config) error {
	ca, err := os.ReadFile(cfg.CAFile)
	if err != nil {
		return fmt.Errorf("reading --client-ca-file: %w", err)
	}
	want := WebhookConfiguration(cfg, ca)
	have := &admissionregistrationv1.MutatingWebhookConfiguration{}
	err = c.Get(ctx, client.ObjectKey{Name: want.Name}, have)
	switch {
	case apierrors.IsNotFound(err):
		if err := c.Create(ctx, want); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating the webhook configuration %s: %w", want.Name, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("reading the webhook configuration %s: %w", want.Name, err)
	}
	have.Webhooks = want.Webhooks
	for k, v := range want.Labels {
		if have.Labels == nil {
			have.Labels = map[string]string{}
		}
		have.Labels[k] = v
	}
	if err := c.Update(ctx, have); err != nil {
		return fmt.Errorf("updating the webhook configuration %s: %w", want.Name, err)
	}
	return nil
}
