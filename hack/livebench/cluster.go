package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/klog/v2"

	"github.com/kscale/kscale/internal/testenv"
)

// AutoscalerUser is the identity the autoscaler under test authenticates
// as; the API server audits only its requests.
const AutoscalerUser = "livebench-autoscaler"

// auditPolicy records every request of AutoscalerUser once, when its
// response completes, and kube-scheduler's pod status patches (its
// unschedulable marks; it authenticates as the environment's admin, and
// the harness writes pod status by update, never by patch), and nothing
// else.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted]
rules:
- level: Metadata
  users: ["` + AutoscalerUser + `"]
- level: Metadata
  users: ["` + testenv.AdminUser + `"]
  verbs: ["patch"]
  resources: [{group: "", resources: ["pods/status"]}]
- level: None
`

// controlPlane is the running environment and the harness's files.
type controlPlane struct {
	env *testenv.Env
	// client is the harness's own unthrottled protobuf client.
	client kubernetes.Interface
	// dir holds the audit log, the autoscaler's kubeconfig and its log.
	dir            string
	auditLog       string
	kubeconfigPath string
}

// startControlPlane runs etcd, kube-apiserver (auditing the autoscaler's
// requests) and kube-scheduler; no kube-controller-manager.
func startControlPlane(ctx context.Context, dir string) (*controlPlane, error) {
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		return nil, fmt.Errorf("writing audit policy: %w", err)
	}
	token, err := randomToken()
	if err != nil {
		return nil, err
	}
	cp := &controlPlane{dir: dir, auditLog: filepath.Join(dir, "audit.log")}
	user := testenv.User{Name: AutoscalerUser, Token: token, Groups: []string{"system:masters"}}
	cp.env, err = testenv.New(ctx, testenv.Options{Scheduler: true, Users: []testenv.User{user},
		APIServerFlags: []string{"--audit-policy-file=" + policy, "--audit-log-path=" + cp.auditLog, "--audit-log-format=json",
			"--audit-log-mode=blocking"}})
	if err != nil {
		return nil, fmt.Errorf("starting the control plane: %w", err)
	}
	cfg := rest.CopyConfig(cp.env.Config)
	cfg.QPS, cfg.Burst = -1, 0 // no client-side rate limit: the harness must not be the brake
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.UserAgent = "livebench"
	if cp.client, err = kubernetes.NewForConfig(cfg); err != nil {
		cp.stop()
		return nil, fmt.Errorf("building the harness client: %w", err)
	}
	cp.kubeconfigPath = filepath.Join(dir, "autoscaler.kubeconfig")
	kc := clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"livebench": {Server: cp.env.APIServerURL, CertificateAuthorityData: cp.env.CAData}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{AutoscalerUser: {Token: token}},
		Contexts:       map[string]*clientcmdapi.Context{"livebench": {Cluster: "livebench", AuthInfo: AutoscalerUser}},
		CurrentContext: "livebench",
	}
	if err := clientcmd.WriteToFile(kc, cp.kubeconfigPath); err != nil {
		cp.stop()
		return nil, fmt.Errorf("writing the autoscaler's kubeconfig: %w", err)
	}
	return cp, nil
}

func (cp *controlPlane) stop() {
	if cp.env != nil {
		cp.env.Stop()
	}
}

func randomToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generating a token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// parallel runs do(i) for i in [0,n) on workers goroutines and returns the
// first error; it logs progress every 10 seconds under what.
func parallel(ctx context.Context, what string, workers, n int, do func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next, done atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	stopProgress := progress(ctx, what, n, &done, start)
	defer stopProgress()
	for range min(workers, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := withRetry(ctx, func() error { return do(ctx, i) }); err != nil {
					cancel(err)
					return
				}
				done.Add(1)
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	klog.FromContext(ctx).Info("Created", "what", what, "count", n, "took", time.Since(start).Round(time.Millisecond),
		"perSecond", int(float64(n)/time.Since(start).Seconds()))
	return nil
}

func progress(ctx context.Context, what string, n int, done *atomic.Int64, start time.Time) func() {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		t := time.NewTicker(10 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				klog.FromContext(ctx).Info("Creating", "what", what, "done", done.Load(), "of", n, "elapsed", time.Since(start).Round(time.Second))
			}
		}
	}()
	return cancel
}

// withRetry retries a write the API server turned away for load (429,
// timeouts) with a short backoff; other errors are returned at once.
func withRetry(ctx context.Context, do func() error) error {
	backoff := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := do()
		if err == nil || attempt == 10 || !overloaded(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// overloaded reports an error the API server gives under load.
func overloaded(err error) bool {
	return apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err)
}

// population is what populate created.
type population struct {
	// sizes are the nodes per group.
	sizes map[string]int
	took  time.Duration
}

// populate creates the namespace, the Ready nodes of cfg in format f and
// the running pods bound to them, owned by ReplicaSets.
func populate(ctx context.Context, c kubernetes.Interface, cfg *Config, f nodeFormat) (*population, error) {
	start := time.Now()
	if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("creating namespace %s: %w", Namespace, err)
	}
	groups := groupNames(cfg.Groups)
	pop := &population{sizes: map[string]int{}}
	names := make([]string, cfg.Nodes)
	for i := range names {
		g := groups[i%len(groups)]
		names[i] = fmt.Sprintf("lb-%s-%d", g, i/len(groups))
		pop.sizes[g]++
	}
	err := parallel(ctx, "nodes", cfg.Workers, cfg.Nodes, func(ctx context.Context, i int) error {
		n, err := f.node(groups[i%len(groups)], i/len(groups), time.Now())
		if err != nil {
			return err
		}
		return createNode(ctx, c, n)
	})
	if err != nil {
		return nil, err
	}
	owners := make([]*appsv1.ReplicaSet, (cfg.Pods+cfg.PodsPerOwner-1)/cfg.PodsPerOwner)
	err = parallel(ctx, "replicasets", cfg.Workers, len(owners), func(ctx context.Context, i int) error {
		rs, err := c.AppsV1().ReplicaSets(Namespace).Create(ctx, replicaSet(fmt.Sprintf("running-%d", i), cfg.PodsPerOwner), metav1.CreateOptions{})
		owners[i] = rs
		return err
	})
	if err != nil {
		return nil, err
	}
	cpu, mem := runningRequests((cfg.Pods + cfg.Nodes - 1) / cfg.Nodes)
	err = parallel(ctx, "running pods", cfg.Workers, cfg.Pods, func(ctx context.Context, i int) error {
		p := runningPod(fmt.Sprintf("running-%06d", i), names[i%len(names)], owners[i/cfg.PodsPerOwner], cpu, mem)
		return createRunningPod(ctx, c, p)
	})
	pop.took = time.Since(start)
	return pop, err
}

// createNode creates a node with its status (kube-apiserver keeps a node's
// status on create) and removes the not-ready taint admission added (no node
// lifecycle controller runs to do it).
func createNode(ctx context.Context, c kubernetes.Interface, n *corev1.Node) error {
	created, err := c.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		if created, err = c.CoreV1().Nodes().Get(ctx, n.Name, metav1.GetOptions{}); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	return readyNode(ctx, c, created)
}

// createRunningPod creates a bound pod and marks it Running.
func createRunningPod(ctx context.Context, c kubernetes.Interface, p *corev1.Pod) error {
	created, err := c.CoreV1().Pods(Namespace).Create(ctx, p, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		if created, err = c.CoreV1().Pods(Namespace).Get(ctx, p.Name, metav1.GetOptions{}); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	if created.Status.Phase == corev1.PodRunning {
		return nil
	}
	created.Status = runningStatus(time.Now())
	_, err = c.CoreV1().Pods(Namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{})
	return err
}
