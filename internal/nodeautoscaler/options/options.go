package options

import (
	"time"
)

// Expander names accepted by --expander.
const (
	ExpanderRandom          = "random"
	ExpanderMostPods        = "most-pods"
	ExpanderLeastWaste      = "least-waste"
	ExpanderPriority        = "priority"
	ExpanderHighestPriority = "highest-priority"
	ExpanderPrice           = "price"
	ExpanderGRPC            = "grpc"
)

// TaintPrefixWildcard ends an AllStartupTaints entry that is a key prefix
// (--startup-taint-prefix); taint keys cannot contain it.
const TaintPrefixWildcard = "*"

// ZalandoNotReadyTaint is the startup taint every kscale node autoscaler
// knows without configuration.
const ZalandoNotReadyTaint = "zalando.org/node-not-ready"

// Options configures the node autoscaler. Field comments name the flag.
type Options struct {
	// ScanInterval is --scan-interval (Gardener scanInterval).
	ScanInterval time.Duration
	// MaxNodesTotal is --max-nodes-total; 0 means no limit.
	MaxNodesTotal int
	// CoresTotal is --cores-total, "min:max" cores in the cluster.
	CoresTotal MinMax
	// MemoryTotal is --memory-total, "min:max" GiB in the cluster.
	MemoryTotal MinMax
	// MaxNodeProvisionTime is --max-node-provision-time.
	MaxNodeProvisionTime time.Duration
	// MaxNodeStartupTime is --max-node-startup-time: how long a registered
	// node may stay unready before it counts as long-not-started.
	MaxNodeStartupTime time.Duration
	// GPULabel is the cloud provider's label of GPU nodes (no flag: the
	// provider names it, as upstream's CloudProvider.GPULabel); a node
	// with it and no allocatable GPU yet is still starting.
	GPULabel string
	// MaxNodesPerScaleUp is --max-nodes-per-scaleup.
	MaxNodesPerScaleUp int
	// MaxBinpackingDuration is --max-nodegroup-binpacking-duration (kscale
	// alias --max-node-group-binpacking-duration). kscale estimates all
	// groups of a scale-up within one budget, the smaller of this and
	// MaxBinpackingTime.
	MaxBinpackingDuration time.Duration
	// MaxBinpackingTime is --max-binpacking-time, the estimation time
	// budget of one scale-up.
	MaxBinpackingTime time.Duration
	// NewPodScaleUpDelay is --new-pod-scale-up-delay (Gardener newPodScaleupDelay).
	NewPodScaleUpDelay time.Duration
	// ExpendablePodsPriorityCutoff is --expendable-pods-priority-cutoff.
	ExpendablePodsPriorityCutoff int
	// MaxUnschedulablePodsConsidered is the fork's
	// --max-unschedulable-pods-considered; 0 means all.
	MaxUnschedulablePodsConsidered int
	// Expanders is --expander, a comma-separated chain.
	Expanders []string
	// GRPCExpanderURL is --grpc-expander-url, the address of the
	// expander server of --expander=grpc.
	GRPCExpanderURL string
	// GRPCExpanderCert is --grpc-expander-cert, the file of the
	// certificate (or CA) that the expander server's TLS certificate is
	// verified with.
	GRPCExpanderCert string
	// BalanceSimilarNodeGroups is --balance-similar-node-groups.
	BalanceSimilarNodeGroups bool
	// ScaleUpTemplateFromCloudProvider is the fork's
	// --scale-up-cloud-provider-template; kscale defaults it to true.
	ScaleUpTemplateFromCloudProvider bool
	// LearnAllocatable is --learn-allocatable-from-nodes: provider
	// templates take each instance type's allocatable from live nodes of
	// the type, and unseen types capacity minus the largest reservation
	// seen (the fork's rules F2/F6, the default); false uses the provider's
	// capacity as allocatable, as upstream.
	LearnAllocatable bool
	// DaemonSetRequestsFromLimits is --daemonset-requests-from-limits:
	// template DaemonSet pods count requests = limits for containers that
	// only set limits (the fork's rule F7, the default); false counts no
	// request for them, as upstream.
	DaemonSetRequestsFromLimits bool
	// TemplateKubeProxyPod is kscale's --template-kube-proxy-pod: every
	// template built from the provider carries the fake kube-proxy pod
	// (100m CPU) upstream 1.36's providers add, as upstream; false, the
	// default, adds none (the fork's rule F8 drops it beside a kube-proxy
	// DaemonSet, kscale never adds it).
	TemplateKubeProxyPod bool
	// BackoffNoFullScaleDown is the fork's --backoff-no-full-scale-down.
	BackoffNoFullScaleDown bool
	// TemplateMismatchTimeout is kscale's --template-mismatch-timeout: how
	// long what a group's real nodes taught about its template (and the
	// pods it is blocked for) outlives the last node that showed it.
	TemplateMismatchTimeout time.Duration
	// InitialNodeGroupBackoffDuration is --initial-node-group-backoff-duration
	// (fork: --node-pool-backoff-initial).
	InitialNodeGroupBackoffDuration time.Duration
	// MaxNodeGroupBackoffDuration is --max-node-group-backoff-duration
	// (fork: --node-pool-backoff-max).
	MaxNodeGroupBackoffDuration time.Duration
	// NodeGroupBackoffResetTimeout is --node-group-backoff-reset-timeout
	// (fork: --node-pool-backoff-reset).
	NodeGroupBackoffResetTimeout time.Duration
	// StartupTaints is --startup-taint; ZalandoNotReadyTaint is added
	// unless ZalandoNotReady is off.
	StartupTaints []string
	// ZalandoNotReady is --zalando-not-ready-taint: ZalandoNotReadyTaint is
	// a startup taint (the fork's rule, the default); false leaves the key
	// an ordinary taint, as upstream.
	ZalandoNotReady bool
	// DeletedNodesFromCloudInstances is --deleted-nodes-from-cloud-instances:
	// a node counts as deleted (not capacity, not upcoming) when the
	// provider does not vouch for its cloud instance and it carries
	// ToBeDeletedByClusterAutoscaler, as upstream counts; false (the
	// default) counts it deleted once it carries
	// BeingDeletedByClusterAutoscaler (the fork's rule F10).
	DeletedNodesFromCloudInstances bool
	// StatusTaints is --status-taint: ignored in templates, node stays ready.
	StatusTaints []string
	// IgnoreTaints is --ignore-taint (Gardener ignoreTaints), the deprecated
	// upstream spelling of a startup taint.
	IgnoreTaints []string
	// EmulatedTopologySpreadLabel is the fork's
	// --emulated-topology-spread-constraint-label; empty disables emulation.
	EmulatedTopologySpreadLabel string
	// DisableNodeInstancesCache is the fork's --disable-node-instances-cache.
	DisableNodeInstancesCache bool
	// Namespace is --namespace, where the priority expander ConfigMap lives.
	Namespace string
	// WriteStatusConfigMap is --write-status-configmap.
	WriteStatusConfigMap bool
	// MaxTotalUnreadyPercentage is --max-total-unready-percentage: the
	// loop halts while more unready nodes than OkTotalUnreadyCount are
	// also more than this share (0-100) of all nodes.
	MaxTotalUnreadyPercentage float64
	// OkTotalUnreadyCount is --ok-total-unready-count.
	OkTotalUnreadyCount int
	// StartupTaintPrefixes is --startup-taint-prefix: taint key prefixes
	// that mark a node as still starting.
	StartupTaintPrefixes []string
	// ScaleUpFromZero is --scale-up-from-zero: when false, no scale-up
	// happens while the cluster has no ready node.
	ScaleUpFromZero bool
	// Estimator is --estimator; only binpacking exists, as upstream.
	Estimator string
	// EmitPerNodeGroupMetrics is --emit-per-nodegroup-metrics: export the
	// per-node-group gauges (min, max and target count, healthiness,
	// backoff status).
	EmitPerNodeGroupMetrics bool
	// Balancing decides which groups balancing treats as similar.
	Balancing BalancingOptions
	// AllowedSchedulerNames is --allowed-scheduler-names: when not empty,
	// only pending pods of these schedulers are considered.
	AllowedSchedulerNames []string
	// BypassedSchedulerNames is --bypassed-scheduler-names: pods of these
	// schedulers count as pending before the scheduler has processed them.
	BypassedSchedulerNames []string
	// ScaleUpUnprocessedTwins is --scale-up-unprocessed-twins: a pod
	// kube-scheduler has not tried yet counts as pending when a pod of the
	// same controller with equal scheduling-relevant fields was marked
	// unschedulable (kscale's own; upstream waits for every pod's mark).
	ScaleUpUnprocessedTwins bool
	// EnforceNodeGroupMinSize is --enforce-node-group-min-size.
	EnforceNodeGroupMinSize bool
	// NodeRemovalLatencyTrackingEnabled is
	// --node-removal-latency-tracking-enabled: observe, per unneeded node,
	// the time from when it could be removed until it was removed or needed
	// again (cluster_autoscaler_node_removal_latency_seconds).
	NodeRemovalLatencyTrackingEnabled bool
	// ScaleDown holds the scale-down settings.
	ScaleDown ScaleDownOptions
}

// ScaleDownOptions are the scale-down settings.
type ScaleDownOptions struct {
	// Enabled is --scale-down-enabled.
	Enabled bool
	// DelayAfterAdd is --scale-down-delay-after-add (Gardener
	// scaleDownDelayAfterAdd); negative means no cooldown.
	DelayAfterAdd time.Duration
	// DelayAfterDelete is --scale-down-delay-after-delete (Gardener
	// scaleDownDelayAfterDelete); 0 means the scan interval.
	DelayAfterDelete time.Duration
	// DelayAfterFailure is --scale-down-delay-after-failure (Gardener
	// scaleDownDelayAfterFailure).
	DelayAfterFailure time.Duration
	// DelayTypeLocal is --scale-down-delay-type-local: the three delays
	// keep only the node groups that scaled up, deleted a node or failed
	// to from scale-down, instead of all of it.
	DelayTypeLocal bool
	// UnneededTime is --scale-down-unneeded-time (Gardener scaleDownUnneededTime).
	UnneededTime time.Duration
	// UnreadyTime is --scale-down-unready-time.
	UnreadyTime time.Duration
	// UtilizationThreshold is --scale-down-utilization-threshold (Gardener
	// scaleDownUtilizationThreshold).
	UtilizationThreshold float64
	// GPUUtilizationThreshold is --scale-down-gpu-utilization-threshold,
	// the threshold of nodes with GPUs.
	GPUUtilizationThreshold float64
	// IgnoreSchedulablePods is the fork's --scale-down-ignore-schedulable-pods.
	IgnoreSchedulablePods bool
	// MaxEmptyBulkDelete is --max-empty-bulk-delete (Gardener maxEmptyBulkDelete).
	MaxEmptyBulkDelete int
	// MaxScaleDownParallelism is --max-scale-down-parallelism: how many
	// nodes may be deleted (drained or empty) at the same time.
	MaxScaleDownParallelism int
	// MaxDrainParallelism is --max-drain-parallelism: how many non-empty
	// nodes may be drained at the same time.
	MaxDrainParallelism int
	// MaxPodEvictionTime is the fork's --max-pod-eviction-time.
	MaxPodEvictionTime time.Duration
	// MaxGracefulTerminationSec is --max-graceful-termination-sec.
	MaxGracefulTerminationSec int
	// SkipNodesWithSystemPods is --skip-nodes-with-system-pods.
	SkipNodesWithSystemPods bool
	// SkipNodesWithLocalStorage is --skip-nodes-with-local-storage.
	SkipNodesWithLocalStorage bool
	// SkipNodesWithJobPods is --skip-nodes-with-job-pods: a running pod of
	// a batch Job keeps its node (the Zalando fork's rule, the default);
	// false moves Job pods as upstream does.
	SkipNodesWithJobPods bool
	// UnreadyEnabled is --scale-down-unready-enabled.
	UnreadyEnabled bool
	// IgnoreDaemonSetsUtilization is --ignore-daemonsets-utilization.
	IgnoreDaemonSetsUtilization bool
	// IgnoreMirrorPodsUtilization is --ignore-mirror-pods-utilization.
	IgnoreMirrorPodsUtilization bool
	// DaemonSetEvictionForEmptyNodes is --daemonset-eviction-for-empty-nodes:
	// DaemonSet pods are evicted (best effort) before an empty node is deleted.
	DaemonSetEvictionForEmptyNodes bool
	// DaemonSetEvictionForOccupiedNodes is
	// --daemonset-eviction-for-occupied-nodes: DaemonSet pods are evicted
	// (best effort) while a node is drained.
	DaemonSetEvictionForOccupiedNodes bool
	// CordonNodeBeforeTerminating is --cordon-node-before-terminating: a
	// node marked for deletion is also set unschedulable.
	CordonNodeBeforeTerminating bool
	// NodeDeleteDelayAfterTaint is --node-delete-delay-after-taint: the
	// wait between marking a node and draining or deleting it.
	NodeDeleteDelayAfterTaint time.Duration
	// NodeDeletionDelayTimeout is --node-deletion-delay-timeout: the
	// longest wait for delay-deletion.cluster-autoscaler.kubernetes.io/
	// annotations to leave a node before it is deleted; 0 does not wait.
	NodeDeletionDelayTimeout time.Duration
	// MinReplicaCount is --min-replica-count: pods of a ReplicaSet or
	// ReplicationController that wants fewer replicas block their node.
	MinReplicaCount int
	// SkipNodesWithCustomControllerPods is
	// --skip-nodes-with-custom-controller-pods: pods whose controller is of
	// another kind than ReplicaSet, StatefulSet, Job, ReplicationController
	// or DaemonSet block their node.
	SkipNodesWithCustomControllerPods bool
	// BlockingSystemPodDisruptionTimeout is upstream's
	// --blocking-system-pod-distruption-timeout (typo kept): a kube-system
	// pod without a PodDisruptionBudget blocks its node only until it is
	// this old.
	BlockingSystemPodDisruptionTimeout time.Duration
	// MaxBulkSoftTaintCount is --max-bulk-soft-taint-count: how many nodes
	// a loop may add or remove the PreferNoSchedule
	// DeletionCandidateOfClusterAutoscaler taint on; 0 turns soft tainting
	// off.
	MaxBulkSoftTaintCount int
	// MaxBulkSoftTaintTime is --max-bulk-soft-taint-time: the time budget
	// of those writes per loop.
	MaxBulkSoftTaintTime time.Duration
	// DrainPriorityConfig is --drain-priority-config: priority:seconds
	// pairs; a drain evicts the pods of each priority range in turn,
	// lowest first, each with its own grace period cap (ParseDrainPriorities).
	DrainPriorityConfig string
	// NonEmptyCandidatesCount is --scale-down-non-empty-candidates-count:
	// how many non-empty nodes one round finds removable beyond those
	// unneeded in the last round; 0 or less: no limit.
	NonEmptyCandidatesCount int
	// CandidatesPoolRatio is --scale-down-candidates-pool-ratio: the share
	// of nodes simulated to find those additional nodes.
	CandidatesPoolRatio float64
	// CandidatesPoolMinCount is --scale-down-candidates-pool-min-count.
	CandidatesPoolMinCount int
	// UnremovableRecheckTimeout is --unremovable-node-recheck-timeout.
	UnremovableRecheckTimeout time.Duration
	// SimulationTimeout is --scale-down-simulation-timeout: the time
	// budget of one round's removal simulation.
	SimulationTimeout time.Duration
}

// defaultMaxGracefulTerminationSec is --max-graceful-termination-sec's
// default; --drain-priority-config requires it.
const defaultMaxGracefulTerminationSec = 600

// Default returns the options every flag defaults to.
func Default() Options {
	return Options{
		ScanInterval:                     10 * time.Second,
		CoresTotal:                       MinMax{Min: 0, Max: 320000},
		MemoryTotal:                      MinMax{Min: 0, Max: 6400000},
		MaxNodeProvisionTime:             15 * time.Minute,
		MaxNodeStartupTime:               15 * time.Minute,
		ZalandoNotReady:                  true,
		MaxNodesPerScaleUp:               1000,
		MaxBinpackingDuration:            10 * time.Second,
		MaxBinpackingTime:                5 * time.Minute,
		ExpendablePodsPriorityCutoff:     -10,
		Expanders:                        []string{ExpanderLeastWaste},
		ScaleUpTemplateFromCloudProvider: true,
		LearnAllocatable:                 true,
		DaemonSetRequestsFromLimits:      true,
		InitialNodeGroupBackoffDuration:  5 * time.Minute,
		MaxNodeGroupBackoffDuration:      30 * time.Minute,
		NodeGroupBackoffResetTimeout:     3 * time.Hour,
		TemplateMismatchTimeout:          3 * time.Hour,
		EmulatedTopologySpreadLabel:      "parent-resource-hash",
		Namespace:                        "kube-system",
		WriteStatusConfigMap:             true,
		MaxTotalUnreadyPercentage:        45,
		ScaleUpFromZero:                  true,
		ScaleUpUnprocessedTwins:          true,
		Estimator:                        "binpacking",
		OkTotalUnreadyCount:              3,
		Balancing:                        BalancingOptions{MaxAllocatableDifferenceRatio: 0.05, MaxFreeDifferenceRatio: 0.05, MemoryDifferenceRatio: 0.015},
		ScaleDown: ScaleDownOptions{
			Enabled:                   true,
			UnreadyEnabled:            true,
			DelayAfterAdd:             10 * time.Minute,
			DelayAfterFailure:         3 * time.Minute,
			UnneededTime:              10 * time.Minute,
			UnreadyTime:               20 * time.Minute,
			UtilizationThreshold:      0.5,
			GPUUtilizationThreshold:   0.5,
			MaxEmptyBulkDelete:        10,
			MaxScaleDownParallelism:   10,
			MaxDrainParallelism:       1,
			MaxPodEvictionTime:        2 * time.Minute,
			MaxGracefulTerminationSec: defaultMaxGracefulTerminationSec,
			SkipNodesWithSystemPods:   true,
			SkipNodesWithLocalStorage: true,
			SkipNodesWithJobPods:      true,

			DaemonSetEvictionForOccupiedNodes:  true,
			CordonNodeBeforeTerminating:        true,
			NodeDeleteDelayAfterTaint:          5 * time.Second,
			NodeDeletionDelayTimeout:           2 * time.Minute,
			SkipNodesWithCustomControllerPods:  true,
			BlockingSystemPodDisruptionTimeout: time.Hour,
			MaxBulkSoftTaintCount:              10,
			MaxBulkSoftTaintTime:               3 * time.Second,
			NonEmptyCandidatesCount:            30,
			CandidatesPoolRatio:                0.1,
			CandidatesPoolMinCount:             50,
			UnremovableRecheckTimeout:          5 * time.Minute,
			SimulationTimeout:                  30 * time.Second,
		},
	}
}

// AllStartupTaints returns the taint keys that make a node not ready:
// --startup-taint, --ignore-taint and, with --zalando-not-ready-taint, the
// Zalando key. Keys with the prefix StartupTaintPrefix or IgnoreTaintPrefix
// count too (see IsStartupTaint).
func (o *Options) AllStartupTaints() []string {
	var out []string
	if o.ZalandoNotReady {
		out = append(out, ZalandoNotReadyTaint)
	}
	out = append(out, o.StartupTaints...)
	out = append(out, o.IgnoreTaints...)
	for _, p := range o.StartupTaintPrefixes {
		out = append(out, p+TaintPrefixWildcard)
	}
	return out
}
