package capienv

import admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

func serviceConfig(path string) admissionregistrationv1.WebhookClientConfig {
	return admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Name: "webhook-service", Namespace: "system", Path: &path}}
}
