package main

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"
	configv1 "k8s.io/kube-scheduler/config/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	schedulerapi "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkplugins "k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodevolumelimits"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	"k8s.io/kubernetes/pkg/scheduler/util/assumecache"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
)

// oracle evaluates requests with the default scheduler profile of the
// linked kube-scheduler, as scheduler.New builds it.
type oracle struct {
	profile  schedulerapi.KubeSchedulerProfile
	registry frameworkruntime.Registry
}

func newOracle() (*oracle, error) {
	// The framework records into the scheduler's metrics, which must exist.
	metrics.Register()
	var versioned configv1.KubeSchedulerConfiguration
	scheme.Scheme.Default(&versioned)
	var cfg schedulerapi.KubeSchedulerConfiguration
	if err := scheme.Scheme.Convert(&versioned, &cfg, nil); err != nil {
		return nil, fmt.Errorf("converting the default scheduler configuration: %w", err)
	}
	if len(cfg.Profiles) != 1 {
		return nil, fmt.Errorf("default configuration has %d profiles, want 1", len(cfg.Profiles))
	}
	return &oracle{profile: cfg.Profiles[0], registry: frameworkplugins.NewInTreeRegistry()}, nil
}

// cluster is one request's framework, scheduler cache and snapshot.
type cluster struct {
	ctx      context.Context
	fw       framework.Framework
	cache    internalcache.Cache
	snapshot *internalcache.Snapshot
	pods     interface{ Add(obj any) error }
	names    []string
	nodes    []fwk.NodeInfo
}

// build creates informers holding the request's objects (filled directly,
// never started, as nothing here watches), a scheduler cache with the
// nodes and bound pods and its snapshot, and a framework over them. The
// context must be cancelled when the cluster is no longer used (it stops
// the cache's goroutine).
func (o *oracle) build(ctx context.Context, req *Request) (*cluster, error) {
	client := fake.NewClientset()
	factory := informers.NewSharedInformerFactory(client, 0)
	if err := fill(factory, req); err != nil {
		return nil, err
	}
	logger := klog.FromContext(ctx)
	c := &cluster{ctx: ctx, cache: internalcache.New(ctx, nil, false), snapshot: internalcache.NewEmptySnapshot(),
		pods: factory.Core().V1().Pods().Informer().GetIndexer()}
	for i := range req.Nodes {
		c.cache.AddNode(logger, &req.Nodes[i])
		c.names = append(c.names, req.Nodes[i].Name)
	}
	for i := range req.Pods {
		if err := c.cache.AddPod(logger, &req.Pods[i]); err != nil {
			return nil, fmt.Errorf("adding pod %s/%s: %w", req.Pods[i].Namespace, req.Pods[i].Name, err)
		}
	}
	if err := c.refresh(); err != nil {
		return nil, err
	}
	dra, err := draManager(ctx, client, factory)
	if err != nil {
		return nil, err
	}
	c.fw, err = frameworkruntime.NewFramework(ctx, o.registry, &o.profile,
		frameworkruntime.WithClientSet(client),
		frameworkruntime.WithInformerFactory(factory),
		frameworkruntime.WithSnapshotSharedLister(c.snapshot),
		frameworkruntime.WithSharedDRAManager(dra),
		frameworkruntime.WithSharedCSIManager(nodevolumelimits.NewCSIManager(factory.Storage().V1().CSINodes().Lister())),
		frameworkruntime.WithParallelism(1),
	)
	if err != nil {
		return nil, fmt.Errorf("building the framework: %w", err)
	}
	return c, nil
}

// refresh updates the snapshot from the cache, as every scheduling cycle
// starts, and looks the nodes up again.
func (c *cluster) refresh() error {
	if err := c.cache.UpdateSnapshot(klog.FromContext(c.ctx), c.snapshot); err != nil {
		return fmt.Errorf("updating the snapshot: %w", err)
	}
	c.nodes = make([]fwk.NodeInfo, len(c.names))
	for i, name := range c.names {
		ni, err := c.snapshot.NodeInfos().Get(name)
		if err != nil {
			return fmt.Errorf("node %q: %w", name, err)
		}
		c.nodes[i] = ni
	}
	return nil
}

// bind reserves the pod on the node (when it is feasible there, as the
// scheduler only reserves feasible nodes) and adds it, bound, to the cache
// and the pod informer.
func (c *cluster) bind(pod *corev1.Pod, node string, state fwk.CycleState, feasible bool) error {
	if feasible {
		if st := c.fw.RunReservePluginsReserve(c.ctx, state, pod, node); !st.IsSuccess() {
			return fmt.Errorf("reserving pod %s/%s on %s: %s", pod.Namespace, pod.Name, node, st.Message())
		}
	}
	bound := pod.DeepCopy()
	bound.Spec.NodeName = node
	if err := c.cache.AddPod(klog.FromContext(c.ctx), bound); err != nil {
		return fmt.Errorf("binding pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	if err := c.pods.Add(bound); err != nil {
		return fmt.Errorf("binding pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return c.refresh()
}

// draManager builds the DRA manager as scheduler.New does when the
// DynamicResourceAllocation feature is on (it is locked on in 1.36).
func draManager(ctx context.Context, client *fake.Clientset, factory informers.SharedInformerFactory) (fwk.SharedDRAManager, error) {
	if !utilfeature.DefaultFeatureGate.Enabled(features.DynamicResourceAllocation) {
		return nil, nil
	}
	logger := klog.FromContext(ctx)
	claims := assumecache.NewAssumeCache(logger, factory.Resource().V1().ResourceClaims().Informer(), "ResourceClaim", "", nil)
	opts := resourceslicetracker.Options{
		EnableDeviceTaintRules:   utilfeature.DefaultFeatureGate.Enabled(features.DRADeviceTaintRules),
		EnableConsumableCapacity: utilfeature.DefaultFeatureGate.Enabled(features.DRAConsumableCapacity),
		SliceInformer:            factory.Resource().V1().ResourceSlices(),
		KubeClient:               client,
	}
	if opts.EnableDeviceTaintRules {
		return nil, fmt.Errorf("DRADeviceTaintRules is on: its tracker needs started informers, which the oracle does not run")
	}
	tracker, err := resourceslicetracker.StartTracker(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("starting the resource slice tracker: %w", err)
	}
	return dynamicresources.NewDRAManager(ctx, claims, tracker, factory), nil
}

// fill adds the request's objects to the informers' stores.
func fill(f informers.SharedInformerFactory, req *Request) error {
	var objs []struct {
		store interface{ Add(obj any) error }
		obj   runtime.Object
	}
	add := func(store interface{ Add(obj any) error }, obj runtime.Object) {
		objs = append(objs, struct {
			store interface{ Add(obj any) error }
			obj   runtime.Object
		}{store, obj})
	}
	core, storage := f.Core().V1(), f.Storage().V1()
	for i := range req.Nodes {
		add(core.Nodes().Informer().GetIndexer(), &req.Nodes[i])
	}
	for i := range req.Pods {
		add(core.Pods().Informer().GetIndexer(), &req.Pods[i])
	}
	for i := range req.Namespaces {
		add(core.Namespaces().Informer().GetIndexer(), &req.Namespaces[i])
	}
	for i := range req.PersistentVolumes {
		add(core.PersistentVolumes().Informer().GetIndexer(), &req.PersistentVolumes[i])
	}
	for i := range req.PersistentVolumeClaims {
		add(core.PersistentVolumeClaims().Informer().GetIndexer(), &req.PersistentVolumeClaims[i])
	}
	for i := range req.StorageClasses {
		add(storage.StorageClasses().Informer().GetIndexer(), &req.StorageClasses[i])
	}
	for i := range req.CSINodes {
		add(storage.CSINodes().Informer().GetIndexer(), &req.CSINodes[i])
	}
	for i := range req.Services {
		add(core.Services().Informer().GetIndexer(), &req.Services[i])
	}
	for i := range req.ReplicaSets {
		add(f.Apps().V1().ReplicaSets().Informer().GetIndexer(), &req.ReplicaSets[i])
	}
	for _, o := range objs {
		if err := o.store.Add(o.obj); err != nil {
			return fmt.Errorf("adding %T: %w", o.obj, err)
		}
	}
	return nil
}

// evaluate runs PreFilter once and Filter on every node for one pod, as
// the scheduler's findNodesThatFitPod does (without nominated pods). It
// returns the cycle state for Reserve.
func (c *cluster) evaluate(ctx context.Context, pod *corev1.Pod) (PodResult, fwk.CycleState) {
	n := len(c.nodes)
	res := PodResult{Plugins: make([]string, n), Reasons: make([]string, n)}
	setErr := func(i int) {
		if res.Errors == nil {
			res.Errors = make([]bool, n)
		}
		res.Errors[i] = true
	}
	state := framework.NewCycleState()
	preRes, st, withNodes := c.fw.RunPreFilterPlugins(ctx, state, pod)
	if !st.IsSuccess() {
		plugin := st.Plugin()
		if plugin == "" {
			plugin = joinPlugins(withNodes)
		}
		for i := range c.nodes {
			res.Plugins[i], res.Reasons[i] = plugin, st.Message()
			if !st.IsRejected() {
				setErr(i)
			}
		}
		return res, state
	}
	for i, ni := range c.nodes {
		if !preRes.AllNodes() && !preRes.NodeNames.Has(ni.Node().Name) {
			res.Plugins[i] = joinPlugins(withNodes)
			res.Reasons[i] = fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", sets.List(withNodes))
			continue
		}
		if st := c.fw.RunFilterPlugins(ctx, state, pod, ni); !st.IsSuccess() {
			res.Plugins[i], res.Reasons[i] = st.Plugin(), st.Message()
			if !st.IsRejected() {
				setErr(i)
			}
		}
	}
	return res, state
}

func joinPlugins(s sets.Set[string]) string {
	l := s.UnsortedList()
	sort.Strings(l)
	return strings.Join(l, ",")
}

// pluginNames lists the framework's plugins at PreFilter and Filter.
func (o *oracle) pluginNames(ctx context.Context) (pre, filter []string, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c, err := o.build(ctx, &Request{})
	if err != nil {
		return nil, nil, err
	}
	for _, p := range c.fw.ListPlugins().PreFilter.Enabled {
		pre = append(pre, p.Name)
	}
	for _, p := range c.fw.ListPlugins().Filter.Enabled {
		filter = append(filter, p.Name)
	}
	return pre, filter, nil
}
