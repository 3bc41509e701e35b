package admission_test

import (
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kscale/kscale/internal/vpa/admission"
)

func testInvalidVPAs(t *testing.T, c client.Client) {
	tests := []struct {
		name   string
		mutate func(*vpav1.VerticalPodAutoscaler)
		want   string
	}{
		{name: "no targetRef", mutate: func(v *vpav1.VerticalPodAutoscaler) { v.Spec.TargetRef = nil }, want: "spec.targetRef: required"},
		{name: "minReplicas 0", mutate: func(v *vpav1.VerticalPodAutoscaler) { v.Spec.UpdatePolicy.MinReplicas = ptr(int32(0)) },
			want: "spec.updatePolicy.minReplicas: must be greater than 0"},
		{name: "minAllowed above maxAllowed", mutate: func(v *vpav1.VerticalPodAutoscaler) {
			v.Spec.ResourcePolicy = &vpav1.PodResourcePolicy{ContainerPolicies: []vpav1.ContainerResourcePolicy{{
				ContainerName: "app", MinAllowed: rl("cpu", "2"), MaxAllowed: rl("cpu", "1")}}}
		}, want: "spec.resourcePolicy.containerPolicies[0]: minAllowed cpu 2 is greater than maxAllowed 1"},
		{name: "fractional millicores", mutate: func(v *vpav1.VerticalPodAutoscaler) {
			v.Spec.ResourcePolicy = &vpav1.PodResourcePolicy{ContainerPolicies: []vpav1.ContainerResourcePolicy{{
				ContainerName: "app", MaxAllowed: rl("cpu", "100u")}}}
		}, want: "spec.resourcePolicy.containerPolicies[0].maxAllowed.cpu: must be a whole number of millicores"},
		{name: "RequestsAndLimits with mode Off", mutate: func(v *vpav1.VerticalPodAutoscaler) {
			v.Spec.ResourcePolicy = &vpav1.PodResourcePolicy{ContainerPolicies: []vpav1.ContainerResourcePolicy{{
				ContainerName: "app", Mode: ptr(vpav1.ContainerScalingModeOff),
				ControlledValues: ptr(vpav1.ContainerControlledValuesRequestsAndLimits)}}}
		}, want: "controlledValues: RequestsAndLimits cannot be set together with mode Off"},
		{name: "controlledResources other than cpu and memory", mutate: func(v *vpav1.VerticalPodAutoscaler) {
			v.Spec.ResourcePolicy = &vpav1.PodResourcePolicy{ContainerPolicies: []vpav1.ContainerResourcePolicy{{
				ContainerName: "app", ControlledResources: &[]corev1.ResourceName{"nvidia.com/gpu"}}}}
		}, want: `controlledResources[0]: only cpu and memory are supported, got "nvidia.com/gpu"`},
		{name: "no containerName", mutate: func(v *vpav1.VerticalPodAutoscaler) {
			v.Spec.ResourcePolicy = &vpav1.PodResourcePolicy{ContainerPolicies: []vpav1.ContainerResourcePolicy{{MaxAllowed: rl("cpu", "1")}}}
		}, want: "spec.resourcePolicy.containerPolicies[0].containerName: required"},
		{name: "mode InPlace while its gate is off", mutate: func(v *vpav1.VerticalPodAutoscaler) {
			v.Spec.UpdatePolicy.UpdateMode = ptr(vpav1.UpdateModeInPlace)
		}, want: "spec.updatePolicy.updateMode: InPlace needs feature gate InPlace, which is off"},
		{name: "two recommenders", mutate: func(v *vpav1.VerticalPodAutoscaler) {
			v.Spec.Recommenders = []*vpav1.VerticalPodAutoscalerRecommenderSelector{{Name: "a"}, {Name: "b"}}
		}, want: "spec.recommenders: at most one recommender is supported"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := vpaFor("default", "invalid", vpav1.UpdateModeRecreate, nil)
			tc.mutate(v)
			err := c.Create(t.Context(), v)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("create error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// testRegisterTwice registers a webhook configuration twice, as two
// replicas starting together do: one configuration remains, with the second
// replica's settings.
func testRegisterTwice(t *testing.T, c client.Client) {
	ca := []byte("-----BEGIN CERTIFICATE-----\nMA==\n-----END CERTIFICATE-----\n")
	cfg := admission.DefaultConfig()
	cfg.Namespace, cfg.ConfigurationName = "kube-system", "register-twice"
	cfg.WebhookLabels = map[string]string{"team": "autoscaling"}
	// Match nothing so that this configuration never intercepts requests.
	cfg.VPAObjectNamespace = "no-such-namespace"
	for _, timeout := range []int32{10, 20} {
		cfg.TimeoutSeconds = timeout
		if err := admission.Register(t.Context(), c, cfg, ca); err != nil {
			t.Fatal(err)
		}
	}
	var list admissionregistrationv1.MutatingWebhookConfigurationList
	if err := c.List(t.Context(), &list); err != nil {
		t.Fatal(err)
	}
	var found []admissionregistrationv1.MutatingWebhookConfiguration
	for _, item := range list.Items {
		if item.Name == cfg.ConfigurationName {
			found = append(found, item)
		}
	}
	if len(found) != 1 || len(found[0].Webhooks) != 1 {
		t.Fatalf("found %d configurations named %s, want 1 with one webhook", len(found), cfg.ConfigurationName)
	}
	if found[0].Labels["team"] != "autoscaling" {
		t.Errorf("labels = %v, want team=autoscaling", found[0].Labels)
	}
	wh := found[0].Webhooks[0]
	if *wh.TimeoutSeconds != 20 || *wh.FailurePolicy != admissionregistrationv1.Ignore || wh.ClientConfig.Service.Name != "vpa-webhook" {
		t.Errorf("webhook = timeout %d, failurePolicy %s, service %+v; want 20, Ignore, vpa-webhook", *wh.TimeoutSeconds, *wh.FailurePolicy, wh.ClientConfig.Service)
	}
}
