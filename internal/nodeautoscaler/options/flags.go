package options

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// AddFlags registers every option on fs with its default taken from o, so
// call it on a value from Default.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.DurationVar(&o.ScanInterval, "scan-interval", o.ScanInterval, "How often the cluster is re-evaluated for scale up or down")
	fs.IntVar(&o.MaxNodesTotal, "max-nodes-total", o.MaxNodesTotal, "Maximum number of nodes in all node groups; 0 means no limit")
	fs.Var(&o.CoresTotal, "cores-total", "Minimum and maximum number of cores in the cluster, as min:max")
	fs.Var(&o.MemoryTotal, "memory-total", "Minimum and maximum GiB of memory in the cluster, as min:max")
	fs.DurationVar(&o.MaxNodeProvisionTime, "max-node-provision-time", o.MaxNodeProvisionTime, "How long a requested node may take to register before the request times out")
	fs.DurationVar(&o.MaxNodeStartupTime, "max-node-startup-time", o.MaxNodeStartupTime, "How long a registered node may stay unready before it counts as long not started")
	fs.IntVar(&o.MaxNodesPerScaleUp, "max-nodes-per-scaleup", o.MaxNodesPerScaleUp, "Maximum number of nodes added in one scale-up")
	fs.DurationVar(&o.MaxBinpackingDuration, "max-nodegroup-binpacking-duration", o.MaxBinpackingDuration, "Time budget of the estimation for a node group (kscale: for all groups of a scale-up, capped by --max-binpacking-time)")
	fs.DurationVar(&o.MaxBinpackingDuration, "max-node-group-binpacking-duration", o.MaxBinpackingDuration, "kscale spelling of --max-nodegroup-binpacking-duration")
	fs.DurationVar(&o.MaxBinpackingTime, "max-binpacking-time", o.MaxBinpackingTime, "Time budget of the estimation of one scale-up")
	fs.DurationVar(&o.NewPodScaleUpDelay, "new-pod-scale-up-delay", o.NewPodScaleUpDelay, "Pods younger than this are not considered for scale-up")
	fs.IntVar(&o.ExpendablePodsPriorityCutoff, "expendable-pods-priority-cutoff", o.ExpendablePodsPriorityCutoff, "Pods with a priority below this do not trigger scale-up")
	fs.IntVar(&o.MaxUnschedulablePodsConsidered, "max-unschedulable-pods-considered", o.MaxUnschedulablePodsConsidered, "Consider only the N oldest pending pods per scale-up; 0 means all")
	fs.StringSliceVar(&o.Expanders, "expander", o.Expanders, "Expander chain, e.g. priority,least-waste; of random, most-pods, least-waste, price, priority, highest-priority, grpc")
	fs.StringVar(&o.GRPCExpanderURL, "grpc-expander-url", o.GRPCExpanderURL, "Address of the gRPC expander server of --expander=grpc (host:port or a gRPC target)")
	fs.StringVar(&o.GRPCExpanderCert, "grpc-expander-cert", o.GRPCExpanderCert, "Certificate file that the gRPC expander server's TLS certificate is verified with (--expander=grpc)")
	fs.BoolVar(&o.BalanceSimilarNodeGroups, "balance-similar-node-groups", o.BalanceSimilarNodeGroups, "Spread scale-ups over node groups with the same template")
	fs.BoolVar(&o.ScaleUpTemplateFromCloudProvider, "scale-up-cloud-provider-template", o.ScaleUpTemplateFromCloudProvider, "Build node group templates from the cloud provider only; false uses a live node when one exists")
	fs.BoolVar(&o.LearnAllocatable, "learn-allocatable-from-nodes", o.LearnAllocatable,
		"Provider templates take allocatable per instance type from live nodes (Zalando fork rule); false uses the provider's capacity as upstream")
	fs.BoolVar(&o.DaemonSetRequestsFromLimits, "daemonset-requests-from-limits", o.DaemonSetRequestsFromLimits,
		"Template DaemonSet pods count requests = limits for containers with limits only (Zalando fork rule); false counts no request as upstream")
	fs.BoolVar(&o.TemplateKubeProxyPod, "template-kube-proxy-pod", o.TemplateKubeProxyPod,
		"Templates built from the cloud provider carry a fake kube-proxy pod requesting 100m CPU, as upstream's providers add; false (kscale's rule) adds none")
	fs.BoolVar(&o.BackoffNoFullScaleDown, "backoff-no-full-scale-down", o.BackoffNoFullScaleDown, "Back failed groups off until they recover and keep one sentinel instance requested")
	o.addBackoffFlags(fs)
	fs.DurationVar(&o.TemplateMismatchTimeout, "template-mismatch-timeout", o.TemplateMismatchTimeout, "How long a node group's learnt template differences and pod blocks outlive the last node that showed them")
	fs.StringArrayVar(&o.StartupTaints, "startup-taint", o.StartupTaints, "Taint key that marks a node as still starting (not ready); repeatable")
	fs.BoolVar(&o.ZalandoNotReady, "zalando-not-ready-taint", o.ZalandoNotReady,
		"Treat the taint zalando.org/node-not-ready as a startup taint (Zalando fork rule); false leaves it an ordinary taint as upstream")
	fs.BoolVar(&o.DeletedNodesFromCloudInstances, "deleted-nodes-from-cloud-instances", o.DeletedNodesFromCloudInstances,
		"Count a node as deleted only when the cloud provider no longer vouches for its instance (or, where it cannot tell, once it carries ToBeDeletedByClusterAutoscaler), as upstream; false (Zalando fork rule) counts it deleted once it carries BeingDeletedByClusterAutoscaler")
	fs.StringArrayVar(&o.StatusTaints, "status-taint", o.StatusTaints, "Taint key ignored in templates that does not affect readiness; repeatable")
	fs.StringArrayVar(&o.StartupTaintPrefixes, "startup-taint-prefix", o.StartupTaintPrefixes, "Taint key prefix that marks a node as still starting; repeatable")
	fs.BoolVar(&o.ScaleUpFromZero, "scale-up-from-zero", o.ScaleUpFromZero, "Scale up while the cluster has no ready node")
	fs.StringVar(&o.Estimator, "estimator", o.Estimator, "Estimator of new nodes; only binpacking")
	fs.StringArrayVar(&o.IgnoreTaints, "ignore-taint", o.IgnoreTaints, "Deprecated spelling of --startup-taint (Gardener ignoreTaints); repeatable")
	fs.StringVar(&o.EmulatedTopologySpreadLabel, "emulated-topology-spread-constraint-label", o.EmulatedTopologySpreadLabel, "Label of the emulated zone spread constraint; empty disables the emulation")
	fs.BoolVar(&o.DisableNodeInstancesCache, "disable-node-instances-cache", o.DisableNodeInstancesCache, "List cloud instances directly every loop")
	fs.StringVar(&o.Namespace, "namespace", o.Namespace, "Namespace of the autoscaler's ConfigMaps (priority expander, status)")
	fs.BoolVar(&o.WriteStatusConfigMap, "write-status-configmap", o.WriteStatusConfigMap, "Write the status ConfigMap")
	fs.Float64Var(&o.MaxTotalUnreadyPercentage, "max-total-unready-percentage", o.MaxTotalUnreadyPercentage, "Maximum percentage of unready nodes in the cluster; beyond it (and --ok-total-unready-count) the autoscaler halts")
	fs.IntVar(&o.OkTotalUnreadyCount, "ok-total-unready-count", o.OkTotalUnreadyCount, "Number of unready nodes always tolerated, whatever --max-total-unready-percentage says")
	o.ScaleDown.addFlags(fs)
	o.Balancing.addFlags(fs)
	o.addPendingPodFlags(fs)
	fs.BoolVar(&o.NodeRemovalLatencyTrackingEnabled, "node-removal-latency-tracking-enabled", o.NodeRemovalLatencyTrackingEnabled,
		"Observe how long unneeded nodes wait beyond --scale-down-unneeded-time (or --scale-down-unready-time) until they are removed or needed again (cluster_autoscaler_node_removal_latency_seconds)")
	fs.BoolVar(&o.EmitPerNodeGroupMetrics, "emit-per-nodegroup-metrics", o.EmitPerNodeGroupMetrics, "Export the per-node-group gauges (node_group_min_count, _max_count, _target_count, _healthiness, _backoff_status)")
	addUnimplementedFlags(fs)
}

func (o *Options) addBackoffFlags(fs *pflag.FlagSet) {
	fs.DurationVar(&o.InitialNodeGroupBackoffDuration, "initial-node-group-backoff-duration", o.InitialNodeGroupBackoffDuration, "First backoff of a node group after a failed scale-up")
	fs.DurationVar(&o.MaxNodeGroupBackoffDuration, "max-node-group-backoff-duration", o.MaxNodeGroupBackoffDuration, "Longest backoff of a node group")
	fs.DurationVar(&o.NodeGroupBackoffResetTimeout, "node-group-backoff-reset-timeout", o.NodeGroupBackoffResetTimeout, "Time after the last failure when a group's backoff history is forgotten")
	fs.DurationVar(&o.InitialNodeGroupBackoffDuration, "node-pool-backoff-initial", o.InitialNodeGroupBackoffDuration, "Fork spelling of --initial-node-group-backoff-duration")
	fs.DurationVar(&o.MaxNodeGroupBackoffDuration, "node-pool-backoff-max", o.MaxNodeGroupBackoffDuration, "Fork spelling of --max-node-group-backoff-duration")
	fs.DurationVar(&o.NodeGroupBackoffResetTimeout, "node-pool-backoff-reset", o.NodeGroupBackoffResetTimeout, "Fork spelling of --node-group-backoff-reset-timeout")
}

func (s *ScaleDownOptions) addFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&s.Enabled, "scale-down-enabled", s.Enabled, "Whether nodes are scaled down")
	fs.DurationVar(&s.DelayAfterAdd, "scale-down-delay-after-add", s.DelayAfterAdd, "Scale-down pause after a scale-up (Gardener scaleDownDelayAfterAdd); negative disables it")
	fs.DurationVar(&s.DelayAfterDelete, "scale-down-delay-after-delete", s.DelayAfterDelete, "Scale-down pause after a node deletion (Gardener scaleDownDelayAfterDelete); 0 means the scan interval")
	fs.DurationVar(&s.DelayAfterFailure, "scale-down-delay-after-failure", s.DelayAfterFailure, "Scale-down pause after a failed scale-down (Gardener scaleDownDelayAfterFailure)")
	fs.BoolVar(&s.DelayTypeLocal, "scale-down-delay-type-local", s.DelayTypeLocal, "Apply the --scale-down-delay-after-* pauses to the node group that scaled up, deleted a node or failed to, not to the whole cluster")
	fs.DurationVar(&s.UnneededTime, "scale-down-unneeded-time", s.UnneededTime, "How long a node must be unneeded before removal (Gardener scaleDownUnneededTime)")
	fs.DurationVar(&s.UnreadyTime, "scale-down-unready-time", s.UnreadyTime, "How long an unready node must be unneeded before removal")
	fs.Float64Var(&s.UtilizationThreshold, "scale-down-utilization-threshold", s.UtilizationThreshold, "Nodes at or below this utilization are removal candidates (Gardener scaleDownUtilizationThreshold)")
	fs.Float64Var(&s.GPUUtilizationThreshold, "scale-down-gpu-utilization-threshold", s.GPUUtilizationThreshold, "Nodes with GPUs at or below this GPU utilization are removal candidates")
	fs.BoolVar(&s.IgnoreSchedulablePods, "scale-down-ignore-schedulable-pods", s.IgnoreSchedulablePods, "Allow scale-down while pending pods fit on existing nodes")
	fs.IntVar(&s.MaxEmptyBulkDelete, "max-empty-bulk-delete", s.MaxEmptyBulkDelete, "Maximum number of empty nodes deleted at once (Gardener maxEmptyBulkDelete)")
	fs.IntVar(&s.MaxScaleDownParallelism, "max-scale-down-parallelism", s.MaxScaleDownParallelism, "Maximum number of nodes (empty or drained) deleted at the same time")
	fs.IntVar(&s.MaxDrainParallelism, "max-drain-parallelism", s.MaxDrainParallelism, "Maximum number of non-empty nodes drained at the same time")
	fs.DurationVar(&s.MaxPodEvictionTime, "max-pod-eviction-time", s.MaxPodEvictionTime, "How long the eviction of one pod is retried during a drain")
	fs.IntVar(&s.MaxGracefulTerminationSec, "max-graceful-termination-sec", s.MaxGracefulTerminationSec, "Longest graceful termination granted to a pod during scale-down")
	fs.BoolVar(&s.SkipNodesWithSystemPods, "skip-nodes-with-system-pods", s.SkipNodesWithSystemPods, "Never remove nodes running kube-system pods other than DaemonSet or mirror pods")
	fs.BoolVar(&s.SkipNodesWithLocalStorage, "skip-nodes-with-local-storage", s.SkipNodesWithLocalStorage, "Never remove nodes running pods with local storage")
	fs.BoolVar(&s.SkipNodesWithJobPods, "skip-nodes-with-job-pods", s.SkipNodesWithJobPods,
		"Never remove nodes running pods of batch Jobs (Zalando fork rule); false moves them as upstream does")
	fs.BoolVar(&s.UnreadyEnabled, "scale-down-unready-enabled", s.UnreadyEnabled, "Whether unready nodes are scaled down")
	fs.BoolVar(&s.IgnoreDaemonSetsUtilization, "ignore-daemonsets-utilization", s.IgnoreDaemonSetsUtilization, "Leave DaemonSet pods out of a node's utilization")
	fs.BoolVar(&s.IgnoreMirrorPodsUtilization, "ignore-mirror-pods-utilization", s.IgnoreMirrorPodsUtilization, "Leave mirror (static) pods out of a node's utilization")
	fs.IntVar(&s.NonEmptyCandidatesCount, "scale-down-non-empty-candidates-count", s.NonEmptyCandidatesCount,
		"Non-empty nodes found removable per round beyond those unneeded in the last round; 0 or less: no limit")
	fs.Float64Var(&s.CandidatesPoolRatio, "scale-down-candidates-pool-ratio", s.CandidatesPoolRatio,
		"Share of the nodes simulated to find those additional non-empty nodes; 1.0: all")
	fs.IntVar(&s.CandidatesPoolMinCount, "scale-down-candidates-pool-min-count", s.CandidatesPoolMinCount,
		"Smallest number of nodes simulated to find those additional non-empty nodes")
	fs.DurationVar(&s.UnremovableRecheckTimeout, "unremovable-node-recheck-timeout", s.UnremovableRecheckTimeout,
		"How long a node the simulation found unremovable is not simulated again")
	fs.DurationVar(&s.SimulationTimeout, "scale-down-simulation-timeout", s.SimulationTimeout,
		"Time budget of one round's removal simulation; candidates left when it runs out wait for the next round")
	s.addDrainFlags(fs)
}

func (s *ScaleDownOptions) addDrainFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&s.DaemonSetEvictionForEmptyNodes, "daemonset-eviction-for-empty-nodes", s.DaemonSetEvictionForEmptyNodes, "Evict DaemonSet pods (best effort) from empty nodes before deleting them")
	fs.BoolVar(&s.DaemonSetEvictionForOccupiedNodes, "daemonset-eviction-for-occupied-nodes", s.DaemonSetEvictionForOccupiedNodes, "Evict DaemonSet pods (best effort) from nodes being drained")
	fs.BoolVar(&s.CordonNodeBeforeTerminating, "cordon-node-before-terminating", s.CordonNodeBeforeTerminating, "Set spec.unschedulable on a node marked for deletion (and clear it if the deletion fails)")
	fs.DurationVar(&s.NodeDeleteDelayAfterTaint, "node-delete-delay-after-taint", s.NodeDeleteDelayAfterTaint, "Wait between marking a node for deletion and draining or deleting it")
	fs.DurationVar(&s.NodeDeletionDelayTimeout, "node-deletion-delay-timeout", s.NodeDeletionDelayTimeout, "Longest wait for delay-deletion.cluster-autoscaler.kubernetes.io/ annotations to leave a node before deleting it; 0 does not wait")
	fs.IntVar(&s.MinReplicaCount, "min-replica-count", s.MinReplicaCount, "Pods of a ReplicaSet or ReplicationController that wants fewer replicas block their node's removal")
	fs.BoolVar(&s.SkipNodesWithCustomControllerPods, "skip-nodes-with-custom-controller-pods", s.SkipNodesWithCustomControllerPods, "Pods owned by a controller of a custom kind block their node's removal")
	fs.IntVar(&s.MaxBulkSoftTaintCount, "max-bulk-soft-taint-count", s.MaxBulkSoftTaintCount, "Nodes per loop whose PreferNoSchedule DeletionCandidateOfClusterAutoscaler taint is added or removed; 0 turns soft tainting off")
	fs.DurationVar(&s.MaxBulkSoftTaintTime, "max-bulk-soft-taint-time", s.MaxBulkSoftTaintTime, "Time budget per loop for adding and removing soft taints")
	fs.StringVar(&s.DrainPriorityConfig, "drain-priority-config", s.DrainPriorityConfig, "Comma-separated priority:seconds pairs: drains evict pods range by range, lowest priority first, each with its grace period cap; replaces --max-graceful-termination-sec, which must then stay 600")
	fs.DurationVar(&s.BlockingSystemPodDisruptionTimeout, "blocking-system-pod-distruption-timeout", s.BlockingSystemPodDisruptionTimeout, "How long a kube-system pod without a PodDisruptionBudget blocks its node's removal, from the pod's creation (upstream's spelling)")
}

// FlagError is a rejected option value; Flag is the flag's name.
type FlagError struct {
	// Flag is the flag name without dashes.
	Flag string
	// Msg explains what is wrong.
	Msg string
}

// Error names the flag.
func (e *FlagError) Error() string { return fmt.Sprintf("--%s: %s", e.Flag, e.Msg) }

// Set applies settings keyed by flag name (without dashes) on top of o, the
// way a scenario file's autoscaler section does. Unknown names and bad values
// fail with a *FlagError; on error o is unchanged.
func (o *Options) Set(settings map[string]string) error {
	next := o.clone()
	fs := pflag.NewFlagSet("options", pflag.ContinueOnError)
	next.AddFlags(fs)
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if fs.Lookup(k) == nil {
			return &FlagError{Flag: k, Msg: "unknown option"}
		}
		values := []string{settings[k]}
		if fs.Lookup(k).Value.Type() == "stringArray" {
			// A scenario's list arrives comma-joined; each item is one
			// occurrence of the repeatable flag.
			values = strings.Split(settings[k], ",")
		}
		for _, v := range values {
			if err := fs.Set(k, v); err != nil {
				return &FlagError{Flag: k, Msg: strings.TrimSpace(err.Error())}
			}
		}
	}
	*o = next
	return nil
}

// FlagNames lists every flag name AddFlags registers, sorted.
func FlagNames() []string {
	o := Default()
	fs := pflag.NewFlagSet("options", pflag.ContinueOnError)
	o.AddFlags(fs)
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	slices.Sort(names)
	return names
}

func (o *Options) clone() Options {
	c := *o
	c.Expanders = slices.Clone(o.Expanders)
	c.StartupTaints = slices.Clone(o.StartupTaints)
	c.StatusTaints = slices.Clone(o.StatusTaints)
	c.IgnoreTaints = slices.Clone(o.IgnoreTaints)
	c.StartupTaintPrefixes = slices.Clone(o.StartupTaintPrefixes)
	c.Balancing.Labels = slices.Clone(o.Balancing.Labels)
	c.Balancing.IgnoredLabels = slices.Clone(o.Balancing.IgnoredLabels)
	c.AllowedSchedulerNames = slices.Clone(o.AllowedSchedulerNames)
	c.BypassedSchedulerNames = slices.Clone(o.BypassedSchedulerNames)
	return c
}
