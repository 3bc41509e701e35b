package kwok_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/kscale/kscale/internal/cloudprovider/kwok"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/testenv"
)

const prefix = "kwok://test/"

// TestKubelet runs the stand-in kubelet against the real kube-scheduler and
// kube-controller-manager.
func TestKubelet(t *testing.T) {
	env := testenv.Start(t, testenv.Options{
		Scheduler: true, ControllerManager: true,
		// A short grace period shows that lease renewals are what keep nodes healthy.
		ControllerManagerFlags: []string{"--node-monitor-grace-period=8s", "--node-monitor-period=1s"},
	})
	ctx := t.Context()
	for _, n := range []*corev1.Node{
		fixture.Node("managed", fixture.WithProviderID(prefix+"managed")),
		fixture.Node("unmanaged", fixture.WithProviderID("other://unmanaged"), fixture.WithNodeLabels(map[string]string{"role": "other"})),
	} {
		if _, err := env.CreateNode(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	kubelet, err := kwok.NewKubelet(kwok.KubeletConfig{Client: env.Client, ProviderIDPrefix: prefix, RenewInterval: time.Second, LeaseDuration: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- kubelet.Run(runCtx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("stand-in kubelet: %v", err)
		}
	})

	t.Run("pods start after their start time", func(t *testing.T) { testStartTime(t, env.Client) })
	t.Run("job pods complete after their run time", func(t *testing.T) { testJobCompletes(t, env.Client) })
	t.Run("graceful deletion is confirmed", func(t *testing.T) { testDeletion(t, env.Client) })
	t.Run("bad annotation fails the pod with its name", func(t *testing.T) { testBadAnnotation(t, env.Client) })
	t.Run("unmanaged node and its pods are left alone", func(t *testing.T) { testUnmanaged(t, env.Client) })
	t.Run("a managed node marked Unknown is posted Ready again", func(t *testing.T) { testReposted(t, env.Client) })
}

// testReposted marks the managed node Unknown, as the node lifecycle
// controller does when leases stopped during an API server outage, and
// expects the stand-in kubelet to post Ready again.
func testReposted(t *testing.T, client kubernetes.Interface) {
	ctx := t.Context()
	n, err := client.CoreV1().Nodes().Get(ctx, "managed", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == corev1.NodeReady {
			n.Status.Conditions[i].Status, n.Status.Conditions[i].Reason = corev1.ConditionUnknown, "NodeStatusUnknown"
		}
	}
	if _, err := client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "node managed Ready=True again", func(ctx context.Context) (bool, error) {
		n, err := client.CoreV1().Nodes().Get(ctx, "managed", metav1.GetOptions{})
		return err == nil && nodeReady(n) == corev1.ConditionTrue, err
	})
}

func testStartTime(t *testing.T, client kubernetes.Interface) {
	ctx := t.Context()
	dep := fixture.Deployment("web", 2, fixture.WithAnnotations(map[string]string{kwok.AnnotationStartTime: "2s"}),
		fixture.WithNodeSelector(map[string]string{fixture.LabelHostname: "managed"}))
	if _, err := client.AppsV1().Deployments(dep.Namespace).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Watch the pods from outside: each must be seen bound and not yet
	// running, and turn Running no earlier than its start time later
	// (less one second: the API stores the bind time in whole seconds).
	firstBound := map[string]time.Time{}
	poll(t, "2 web pods Running and Ready", func(ctx context.Context) (bool, error) {
		list, err := client.CoreV1().Pods(dep.Namespace).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return false, err
		}
		readyCount := 0
		for i := range list.Items {
			p := &list.Items[i]
			if _, seen := firstBound[p.Name]; !seen && p.Spec.NodeName != "" && !ready(p) {
				firstBound[p.Name] = time.Now()
			}
			if ready(p) {
				readyCount++
				bound, seen := firstBound[p.Name]
				if !seen {
					return false, fmt.Errorf("pod %s was Running before it was ever seen bound", p.Name)
				}
				if waited := time.Since(bound); waited < time.Second {
					return false, fmt.Errorf("pod %s ran %v after it was seen bound, want about its 2s start time", p.Name, waited)
				}
				if p.Status.PodIP == "" || p.Status.HostIP == "" {
					return false, fmt.Errorf("pod %s has no pod or host IP", p.Name)
				}
			}
		}
		return len(list.Items) == 2 && readyCount == 2, nil
	})
}

func testJobCompletes(t *testing.T, client kubernetes.Interface) {
	job := fixture.Job("batch", 1, 1, fixture.WithAnnotations(map[string]string{kwok.AnnotationRunTime: "1s"}),
		fixture.WithNodeSelector(map[string]string{fixture.LabelHostname: "managed"}))
	if _, err := client.BatchV1().Jobs(job.Namespace).Create(t.Context(), job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "job batch Complete", func(ctx context.Context) (bool, error) {
		j, err := client.BatchV1().Jobs(job.Namespace).Get(ctx, job.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range j.Status.Conditions {
			if c.Type == batchv1.JobComplete && c.Status == corev1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
}

func testDeletion(t *testing.T, client kubernetes.Interface) {
	pods := client.CoreV1().Pods(fixture.DefaultNamespace)
	pod := fixture.Pod("to-delete", fixture.OnNode("managed"))
	if _, err := pods.Create(t.Context(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "pod to-delete Running", func(ctx context.Context) (bool, error) {
		p, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		return err == nil && p.Status.Phase == corev1.PodRunning, err
	})
	// The default 30s grace period would keep the object for 30s without a kubelet.
	if err := pods.Delete(t.Context(), pod.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "pod to-delete gone", func(ctx context.Context) (bool, error) {
		_, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}

func testBadAnnotation(t *testing.T, client kubernetes.Interface) {
	pods := client.CoreV1().Pods(fixture.DefaultNamespace)
	pod := fixture.Pod("bad", fixture.OnNode("managed"), fixture.WithAnnotations(map[string]string{kwok.AnnotationStartTime: "soon"}))
	if _, err := pods.Create(t.Context(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "pod bad Failed naming the annotation", func(ctx context.Context) (bool, error) {
		p, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		return err == nil && p.Status.Phase == corev1.PodFailed && strings.Contains(p.Status.Message, kwok.AnnotationStartTime), err
	})
}

func testUnmanaged(t *testing.T, client kubernetes.Interface) {
	ctx := t.Context()
	pods := client.CoreV1().Pods(fixture.DefaultNamespace)
	if _, err := pods.Create(ctx, fixture.Pod("elsewhere", fixture.OnNode("unmanaged")), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Without lease renewals the node lifecycle controller gives up on the
	// unmanaged node after the grace period; the managed one stays Ready.
	poll(t, "node unmanaged Ready=Unknown", func(ctx context.Context) (bool, error) {
		n, err := client.CoreV1().Nodes().Get(ctx, "unmanaged", metav1.GetOptions{})
		return err == nil && nodeReady(n) == corev1.ConditionUnknown, err
	})
	n, err := client.CoreV1().Nodes().Get(ctx, "managed", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := nodeReady(n); got != corev1.ConditionTrue {
		t.Errorf("managed node Ready = %s, want True while its lease is renewed", got)
	}
	p, err := pods.Get(ctx, "elsewhere", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Status.Phase == corev1.PodRunning {
		t.Error("a pod on an unmanaged node must not be run by the stand-in kubelet")
	}
	leases, err := client.CoordinationV1().Leases(corev1.NamespaceNodeLease).List(ctx, metav1.ListOptions{LabelSelector: labels.Everything().String()})
	if err != nil {
		t.Fatal(err)
	}
	if len(leases.Items) != 1 || leases.Items[0].Name != "managed" {
		t.Errorf("node leases = %d, want exactly the managed node's", len(leases.Items))
	}
}

func ready(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodRunning && conditionTrue(p, corev1.PodReady)
}

func conditionTrue(p *corev1.Pod, t corev1.PodConditionType) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func nodeReady(n *corev1.Node) corev1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status
		}
	}
	return ""
}

func poll(t *testing.T, what string, cond wait.ConditionWithContextFunc) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 90*time.Second, true, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}
