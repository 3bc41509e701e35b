package awstest

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/autoscaling"
	astypes "github.com/aws/aws-sdk-go-v2/service/autoscaling/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
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
	eks    *eks.Client
	boot   time.Duration

	mu        sync.Mutex
	firstSeen map[string]time.Time
	launched  map[string]string // group -> type of instances moto launched without one
}

// NewKubelet reads the instances from motoURL (moto itself, so that the
// provider's view through the proxy is not disturbed).
func NewKubelet(tb testing.TB, client kubernetes.Interface, motoURL string, boot time.Duration) *Kubelet {
	tb.Helper()
	cfg := Config(tb, motoURL)
	return &Kubelet{client: client, as: autoscaling.NewFromConfig(cfg), eks: eks.NewFromConfig(cfg), boot: boot, firstSeen: map[string]time.Time{},
		launched: map[string]string{}}
}

// LaunchedType names the instance type the nodes of group get when moto
// launched its instances without one: moto does not choose a type for
// attribute-based selection (InstanceRequirements), AWS launches one of
// the types the requirements select.
func (k *Kubelet) LaunchedType(group, instanceType string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.launched[group] = instanceType
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

// bootstrapEKS gives the node of an EKS managed node group's instance the
// node group's labels and taints, as the EKS bootstrap does.
func (k *Kubelet) bootstrapEKS(ctx context.Context, g astypes.AutoScalingGroup, node *corev1.Node) error {
	var cluster, name string
	for _, t := range g.Tags {
		switch awssdk.ToString(t.Key) {
		case "eks:cluster-name":
			cluster = awssdk.ToString(t.Value)
		case "eks:nodegroup-name":
			name = awssdk.ToString(t.Value)
		}
	}
	if cluster == "" || name == "" {
		return nil
	}
	out, err := k.eks.DescribeNodegroup(ctx, &eks.DescribeNodegroupInput{ClusterName: awssdk.String(cluster), NodegroupName: awssdk.String(name)})
	if err != nil {
		return fmt.Errorf("describing EKS node group %s: %w", name, err)
	}
	maps.Copy(node.Labels, out.Nodegroup.Labels)
	node.Labels["eks.amazonaws.com/nodegroup"] = name
	effects := map[ekstypes.TaintEffect]corev1.TaintEffect{ekstypes.TaintEffectNoSchedule: corev1.TaintEffectNoSchedule,
		ekstypes.TaintEffectNoExecute: corev1.TaintEffectNoExecute, ekstypes.TaintEffectPreferNoSchedule: corev1.TaintEffectPreferNoSchedule}
	for _, t := range out.Nodegroup.Taints {
		node.Spec.Taints = append(node.Spec.Taints, corev1.Taint{Key: awssdk.ToString(t.Key), Value: awssdk.ToString(t.Value), Effect: effects[t.Effect]})
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
	if typ == "" {
		k.mu.Lock()
		typ = k.launched[awssdk.ToString(g.AutoScalingGroupName)]
		k.mu.Unlock()
	}
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
	if err := k.bootstrapEKS(ctx, g, node); err != nil {
		return err
	}
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
