package admission

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
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

// Register creates the MutatingWebhookConfiguration with caBundle, or
// rewrites the existing one of the same name in place with a JSON merge
// patch (its webhooks list replaced, its labels merged). Patching rather
// than deleting and re-creating, as upstream does, lets several replicas
// register at start-up without a window in which no webhook is configured;
// like upstream's, it needs only the create, get and patch verbs that
// upstream's RBAC grants (no update).
func Register(ctx context.Context, c client.Client, cfg Config, caBundle []byte) error {
	want := WebhookConfiguration(cfg, caBundle)
	have := &admissionregistrationv1.MutatingWebhookConfiguration{}
	err := c.Get(ctx, client.ObjectKey{Name: want.Name}, have)
	switch {
	case apierrors.IsNotFound(err):
		if err := c.Create(ctx, want); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating the webhook configuration %s: %w", want.Name, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("reading the webhook configuration %s: %w", want.Name, err)
	}
	fields := map[string]any{"webhooks": want.Webhooks}
	if len(want.Labels) > 0 { // a null would delete the others' labels
		fields["metadata"] = map[string]any{"labels": want.Labels}
	}
	patch, err := json.Marshal(fields)
	if err != nil {
		return fmt.Errorf("encoding the webhook configuration patch: %w", err)
	}
	if err := c.Patch(ctx, have, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("patching the webhook configuration %s: %w", want.Name, err)
	}
	return nil
}

// PublishCABundle makes the webhook configuration trust caBundle: when the
// configuration's webhook (vpa.k8s.io) holds another bundle, it sends the
// strategic-merge patch upstream's admission controller sends on a CA
// change, which needs only the patch verb. A missing configuration is left
// to registration (or to whoever installs it) and is no error; the bundle
// is published again on the next sync.
func PublishCABundle(ctx context.Context, c client.Client, cfg Config, caBundle []byte) error {
	have := &admissionregistrationv1.MutatingWebhookConfiguration{}
	err := c.Get(ctx, client.ObjectKey{Name: cfg.ConfigurationName}, have)
	if apierrors.IsNotFound(err) {
		klog.FromContext(ctx).V(2).Info("No webhook configuration to publish the CA bundle to yet", "configuration", cfg.ConfigurationName)
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the webhook configuration %s: %w", cfg.ConfigurationName, err)
	}
	i := slices.IndexFunc(have.Webhooks, func(w admissionregistrationv1.MutatingWebhook) bool { return w.Name == DefaultWebhookName })
	if i < 0 {
		return fmt.Errorf("webhook configuration %s: no webhook %s", cfg.ConfigurationName, DefaultWebhookName)
	}
	if bytes.Equal(have.Webhooks[i].ClientConfig.CABundle, caBundle) {
		return nil
	}
	patch, err := json.Marshal(map[string]any{"webhooks": []any{map[string]any{
		"name": DefaultWebhookName, "clientConfig": map[string]any{"caBundle": caBundle},
	}}})
	if err != nil {
		return fmt.Errorf("encoding the caBundle patch: %w", err)
	}
	if err := c.Patch(ctx, have, client.RawPatch(types.StrategicMergePatchType, patch)); err != nil {
		return fmt.Errorf("patching the caBundle of webhook configuration %s: %w", cfg.ConfigurationName, err)
	}
	klog.FromContext(ctx).Info("Published a new CA bundle", "configuration", cfg.ConfigurationName)
	return nil
}
