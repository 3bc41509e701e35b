package kwok_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	kwokstages "github.com/kscale/kscale/deploy/kwok"
	"github.com/kscale/kscale/internal/cloudprovider/kwok"
	"github.com/kscale/kscale/internal/fixture"
	"github.com/kscale/kscale/internal/testenv"
)

const kubeletConfig = `
nodeGroups:
- name: ready
  min: 1
  max: 1
  target: 1
  resources: {cpu: "8", memory: 16Gi}
  bootTime: 0s
- name: booting
  max: 1
  resources: {cpu: "8", memory: 16Gi}
  bootTime: 1h
`

// TestKwokPlaysTheKubelet runs the kwok provider with the real kwok
// controller and kscale's Stages (deploy/kwok) against the real
// kube-scheduler and kube-controller-manager: kwok plays the kubelet of the
// provider's nodes and of nothing else, and leaves a booting node NotReady.
func TestKwokPlaysTheKubelet(t *testing.T) {
	env := testenv.Start(t, testenv.Options{
		Scheduler: true, ControllerManager: true, Kwok: true,
		// A short grace period shows that kwok's lease renewals (every
		// quarter of the lease duration, as kubelets) keep nodes healthy.
		ControllerManagerFlags: []string{"--node-monitor-grace-period=8s", "--node-monitor-period=1s"},
		KwokFlags:              []string{"--node-lease-duration-seconds=4"},
	})
	ctx := t.Context()
	cfg, err := kwok.ParseCloudConfig([]byte(kubeletConfig))
	if err != nil {
		t.Fatal(err)
	}
	p, err := kwok.New(kwok.Config{Client: env.Client, NodeGroups: cfg.NodeGroups})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.IncreaseSize(ctx, "booting", 1); err != nil {
		t.Fatal(err)
	}
	sync(t, p)
	nodes := expectNodes(t, env, map[string]int{"ready": 1, "booting": 1})
	managed, booting := nodes["ready"][0].Name, nodes["booting"][0].Name
	if _, err := env.CreateNode(ctx, fixture.Node("unmanaged", fixture.WithNodeLabels(map[string]string{"role": "other"}))); err != nil {
		t.Fatal(err)
	}

	t.Run("pods start after their start time", func(t *testing.T) { testStartTime(t, env.Client, managed) })
	t.Run("job pods complete after their run time", func(t *testing.T) { testJobCompletes(t, env.Client, managed) })
	t.Run("graceful deletion is confirmed", func(t *testing.T) { testDeletion(t, env.Client, managed) })
	t.Run("an unparsable start time counts as none", func(t *testing.T) { testBadAnnotation(t, env.Client, managed) })
	t.Run("unmanaged nodes are left alone, booting ones NotReady", func(t *testing.T) { testUnmanaged(t, env.Client, managed, booting) })
	t.Run("a managed node marked Unknown is posted Ready again", func(t *testing.T) { testReposted(t, env.Client, managed) })
	if t.Failed() {
		t.Logf("kwok log:\n%s", env.Logs("kwok"))
	}
}

// testReposted marks the managed node Unknown, as the node lifecycle
// controller does when leases stopped during an API server outage, and
// expects kwok to post Ready again.
func testReposted(t *testing.T, client kubernetes.Interface, managed string) {
	ctx := t.Context()
	n, err := client.CoreV1().Nodes().Get(ctx, managed, metav1.GetOptions{})
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
	poll(t, "managed node Ready=True again", func(ctx context.Context) (bool, error) {
		n, err := client.CoreV1().Nodes().Get(ctx, managed, metav1.GetOptions{})
		return err == nil && nodeReady(n) == corev1.ConditionTrue, err
	})
}

func testStartTime(t *testing.T, client kubernetes.Interface, managed string) {
	ctx := t.Context()
	dep := fixture.Deployment("web", 2, fixture.WithAnnotations(map[string]string{kwokstages.AnnotationStartTime: "2s"}),
		fixture.WithNodeSelector(map[string]string{fixture.LabelHostname: managed}))
	if _, err := client.AppsV1().Deployments(dep.Namespace).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Watch the pods from outside: each must be seen bound and not yet
	// running, and turn Running no earlier than about its start time later.
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
			if !ready(p) {
				continue
			}
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
		return len(list.Items) == 2 && readyCount == 2, nil
	})
}

func testJobCompletes(t *testing.T, client kubernetes.Interface, managed string) {
	job := fixture.Job("batch", 1, 1, fixture.WithAnnotations(map[string]string{kwokstages.AnnotationRunTime: "1s"}),
		fixture.WithNodeSelector(map[string]string{fixture.LabelHostname: managed}))
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

func testDeletion(t *testing.T, client kubernetes.Interface, managed string) {
	pods := client.CoreV1().Pods(fixture.DefaultNamespace)
	pod := fixture.Pod("to-delete", fixture.OnNode(managed))
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

// testBadAnnotation shows the documented fallback: kwok cannot fail a pod
// for an unparsable duration, so the Stage's own delay (none) applies.
func testBadAnnotation(t *testing.T, client kubernetes.Interface, managed string) {
	pods := client.CoreV1().Pods(fixture.DefaultNamespace)
	pod := fixture.Pod("bad", fixture.OnNode(managed), fixture.WithAnnotations(map[string]string{kwokstages.AnnotationStartTime: "soon"}))
	if _, err := pods.Create(t.Context(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "pod bad Running", func(ctx context.Context) (bool, error) {
		p, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		return err == nil && ready(p), err
	})
}

func testUnmanaged(t *testing.T, client kubernetes.Interface, managed, booting string) {
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
	n, err := client.CoreV1().Nodes().Get(ctx, managed, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := nodeReady(n); got != corev1.ConditionTrue {
		t.Errorf("managed node Ready = %s, want True while kwok renews its lease", got)
	}
	p, err := pods.Get(ctx, "elsewhere", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Status.Phase == corev1.PodRunning {
		t.Error("a pod on an unmanaged node must not be run by kwok")
	}
	b, err := client.CoreV1().Nodes().Get(ctx, booting, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if nodeReady(b) == corev1.ConditionTrue {
		t.Errorf("booting node Ready = %s before the provider ended the boot", nodeReady(b))
	}
	leases, err := client.CoordinationV1().Leases(corev1.NamespaceNodeLease).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range leases.Items {
		names = append(names, l.Name)
	}
	if slices.Sort(names); !slices.Equal(names, sortedNames(managed, booting)) {
		t.Errorf("node leases %v, want exactly those of the provider's nodes", names)
	}
}

func sortedNames(names ...string) []string {
	slices.Sort(names)
	return names
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
