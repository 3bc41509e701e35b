// Package testkube creates the Kubernetes objects the custom metrics tests
// need on a real control plane: shoot namespaces, kube-apiserver pods with a
// status IP, CA and token secrets, and polls for conditions.
package testkube

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/kscale/kscale/internal/fixture"
)

// APIServerLabels are the labels of a kube-apiserver pod.
func APIServerLabels() map[string]string {
	return map[string]string{"app": "kubernetes", "role": "apiserver"}
}

// Namespace creates a namespace (if missing).
func Namespace(tb testing.TB, ctx context.Context, c kubernetes.Interface, name string) {
	tb.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := c.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		tb.Fatalf("creating namespace %s: %v", name, err)
	}
}

// Pod creates a pod with the given labels and, when ip is not empty, writes
// a Running, Ready status with that IP, as a kubelet would.
func Pod(tb testing.TB, ctx context.Context, c kubernetes.Interface, namespace, name, ip string, labels map[string]string) *corev1.Pod {
	tb.Helper()
	p := fixture.Pod(name, fixture.InNamespace(namespace))
	p.Labels = labels
	created, err := c.CoreV1().Pods(namespace).Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		tb.Fatalf("creating pod %s/%s: %v", namespace, name, err)
	}
	if ip == "" {
		return created
	}
	return SetPodIP(tb, ctx, c, created, ip)
}

// SetPodIP writes a Running, Ready status with ip.
func SetPodIP(tb testing.TB, ctx context.Context, c kubernetes.Interface, p *corev1.Pod, ip string) *corev1.Pod {
	tb.Helper()
	p = p.DeepCopy()
	now := metav1.Now()
	p.Status = corev1.PodStatus{
		Phase: corev1.PodRunning, PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}}, StartTime: &now,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}},
	}
	updated, err := c.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{})
	if err != nil {
		tb.Fatalf("writing status of pod %s/%s: %v", p.Namespace, p.Name, err)
	}
	return updated
}

// Secret creates or replaces a secret.
func Secret(tb testing.TB, ctx context.Context, c kubernetes.Interface, namespace, name string, labels map[string]string, data map[string][]byte) {
	tb.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels}, Data: data}
	secrets := c.CoreV1().Secrets(namespace)
	_, err := secrets.Create(ctx, s, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		_, err = secrets.Update(ctx, s, metav1.UpdateOptions{})
	}
	if err != nil {
		tb.Fatalf("writing secret %s/%s: %v", namespace, name, err)
	}
}

// Poll waits up to timeout for cond, failing the test with what it waited for.
func Poll(tb testing.TB, ctx context.Context, timeout time.Duration, what string, cond func(context.Context) (bool, error)) {
	tb.Helper()
	var last error
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		last = err
		return ok, nil
	})
	if err != nil {
		tb.Fatalf("waiting for %s: %v (last error: %v)", what, err, last)
	}
}
