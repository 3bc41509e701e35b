package awstest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/autoscaling"
	astypes "github.com/aws/aws-sdk-go-v2/service/autoscaling/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"

	kwokstages "github.com/kscale/kscale/deploy/kwok"
	"github.com/kscale/kscale/internal/cloudprovider"
	"github.com/kscale/kscale/internal/cloudprovider/aws"
)

// Reserved is what the stand-in's nodes keep for the system: allocatable
// is capacity minus this.
var Reserved = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("512Mi")}

// Kubelet registers the node of every running moto instance, as its kubelet
// would: after a boot time it creates a Ready Node (providerID
// aws:///<zone>/<instance-id>, labels from the group's label tags, capacity
// of the instance type) annotated for the real kwok controller, which the
// test starts with testenv.Options.Kwok and which then renews the node's
// Lease and runs its pods; it deletes the Node when the instance is gone or
// terminating.
type Kubelet struct {
	client kubernetes.Interface
	as     *autoscaling.Client
	boot   time.Duration

	mu        sync.Mutex
	firstSeen map[string]time.Time
}

// NewKubelet reads the instances from motoURL (moto itself, so that the
// provider's view through the proxy is not disturbed).
func NewKubelet(tb testing.TB, client kubernetes.Interface, motoURL string, boot time.Duration) *Kubelet {
	tb.Helper()
	return &Kubelet{client: client, as: autoscaling.NewFromConfig(Config(tb, motoURL)), boot: boot, firstSeen: map[string]time.Time{}}
}

// Start runs the stand-in until the test ends.
func (k *Kubelet) Start(tb testing.TB) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); k.run(ctx) }()
	tb.Cleanup(func() { cancel(); <-done })
}

func (k *Kubelet) run(ctx context.Context) {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		if err := k.sync(ctx); err != nil && ctx.Err() == nil {
			klog.FromContext(ctx).Error(err, "Stand-in kubelet sync failed")
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sync registers booted instances and removes the nodes of gone ones.
func (k *Kubelet) sync(ctx context.Context) error {
	running := map[string]bool{}
	pages := autoscaling.NewDescribeAutoScalingGroupsPaginator(k.as, &autoscaling.DescribeAutoScalingGroupsInput{})
	now := time.Now()
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return err
		}
		for _, g := range page.AutoScalingGroups {
			for _, in := range g.Instances {
				if in.LifecycleState != astypes.LifecycleStateInService {
					continue
				}
				id := awssdk.ToString(in.InstanceId)
				running[id] = true
				k.mu.Lock()
				seen, ok := k.firstSeen[id]
				if !ok {
					seen, k.firstSeen[id] = now, now
				}
				k.mu.Unlock()
				if now.Sub(seen) >= k.boot {
					if err := k.register(ctx, g, in); err != nil {
						return err
					}
				}
			}
		}
	}
	nodes, err := k.client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, n := range nodes.Items {
		if !strings.HasPrefix(n.Spec.ProviderID, aws.ProviderIDPrefix) || running[n.Name] {
			continue
		}
		if err := k.client.CoreV1().Nodes().Delete(ctx, n.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// register creates the instance's Node unless it exists.
func (k *Kubelet) register(ctx context.Context, g astypes.AutoScalingGroup, in astypes.Instance) error {
	id, zone := awssdk.ToString(in.InstanceId), awssdk.ToString(in.AvailabilityZone)
	if _, err := k.client.CoreV1().Nodes().Get(ctx, id, metav1.GetOptions{}); err == nil || !apierrors.IsNotFound(err) {
		return err
	}
	typ := awssdk.ToString(in.InstanceType)
	it, ok := aws.StaticInstanceType(typ)
	if !ok {
		return fmt.Errorf("instance %s: unknown type %q", id, typ)
	}
	labels := map[string]string{corev1.LabelHostname: id, corev1.LabelOSStable: "linux", corev1.LabelArchStable: it.Architecture,
		corev1.LabelInstanceTypeStable: typ, corev1.LabelTopologyZone: zone, corev1.LabelTopologyRegion: Region}
	for _, t := range g.Tags {
		if l, ok := strings.CutPrefix(awssdk.ToString(t.Key), cloudprovider.TagLabelPrefix); ok {
			labels[l] = awssdk.ToString(t.Value)
		}
	}
	alloc := it.Capacity.DeepCopy()
	for r, q := range Reserved {
		a := alloc[r]
		a.Sub(q)
		alloc[r] = a
	}
	annotations := map[string]string{kwokstages.NodeAnnotation: kwokstages.NodeAnnotationValue}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: id, Labels: labels, Annotations: annotations}, Spec: corev1.NodeSpec{ProviderID: aws.ProviderIDPrefix + zone + "/" + id}}
	created, err := k.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("registering node %s: %w", id, err)
	}
	now := metav1.Now()
	status := corev1.NodeStatus{Capacity: it.Capacity, Allocatable: alloc, Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady,
		Status: corev1.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: now, LastTransitionTime: now}}}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		created.Status = status
		_, err := k.client.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) {
			if latest, getErr := k.client.CoreV1().Nodes().Get(ctx, id, metav1.GetOptions{}); getErr == nil {
				created = latest
			}
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("posting status of node %s: %w", id, err)
	}
	return nil
}
