package options

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

var knownExpanders = []string{ExpanderRandom, ExpanderMostPods, ExpanderLeastWaste, ExpanderPriority, ExpanderHighestPriority, ExpanderPrice, ExpanderGRPC}

// Validate checks every option and returns all problems, each a *FlagError
// naming its flag.
func (o *Options) Validate() error {
	var errs []error
	bad := func(cond bool, flag, format string, args ...any) {
		if cond {
			errs = append(errs, &FlagError{Flag: flag, Msg: fmt.Sprintf(format, args...)})
		}
	}
	bad(o.ScanInterval < time.Second, "scan-interval", "must be at least 1s, got %v", o.ScanInterval)
	bad(o.MaxNodesTotal < 0, "max-nodes-total", "must not be negative, got %d", o.MaxNodesTotal)
	bad(o.MaxNodeProvisionTime <= 0, "max-node-provision-time", "must be positive, got %v", o.MaxNodeProvisionTime)
	bad(o.MaxNodeStartupTime <= 0, "max-node-startup-time", "must be positive, got %v", o.MaxNodeStartupTime)
	bad(o.MaxNodesPerScaleUp <= 0, "max-nodes-per-scaleup", "must be positive, got %d", o.MaxNodesPerScaleUp)
	bad(o.MaxBinpackingDuration <= 0, "max-nodegroup-binpacking-duration", "must be positive, got %v", o.MaxBinpackingDuration)
	bad(o.MaxBinpackingTime <= 0, "max-binpacking-time", "must be positive, got %v", o.MaxBinpackingTime)
	bad(o.NewPodScaleUpDelay < 0, "new-pod-scale-up-delay", "must not be negative, got %v", o.NewPodScaleUpDelay)
	bad(o.MaxUnschedulablePodsConsidered < 0, "max-unschedulable-pods-considered", "must not be negative, got %d", o.MaxUnschedulablePodsConsidered)
	bad(o.InitialNodeGroupBackoffDuration <= 0, "initial-node-group-backoff-duration", "must be positive, got %v", o.InitialNodeGroupBackoffDuration)
	bad(o.MaxNodeGroupBackoffDuration < o.InitialNodeGroupBackoffDuration, "max-node-group-backoff-duration",
		"must be at least --initial-node-group-backoff-duration (%v), got %v", o.InitialNodeGroupBackoffDuration, o.MaxNodeGroupBackoffDuration)
	bad(o.NodeGroupBackoffResetTimeout <= 0, "node-group-backoff-reset-timeout", "must be positive, got %v", o.NodeGroupBackoffResetTimeout)
	bad(o.TemplateMismatchTimeout <= 0, "template-mismatch-timeout", "must be positive, got %v", o.TemplateMismatchTimeout)
	bad(o.Namespace == "", "namespace", "must not be empty")
	bad(o.MaxTotalUnreadyPercentage < 0 || o.MaxTotalUnreadyPercentage > 100, "max-total-unready-percentage", "must be within [0, 100], got %v", o.MaxTotalUnreadyPercentage)
	bad(o.Estimator != "binpacking", "estimator", "only binpacking exists, got %q", o.Estimator)
	for _, p := range o.StartupTaintPrefixes {
		bad(p == "" || strings.Contains(p, TaintPrefixWildcard), "startup-taint-prefix", "must be a non-empty taint key prefix, got %q", p)
	}
	bad(o.OkTotalUnreadyCount < 0, "ok-total-unready-count", "must not be negative, got %d", o.OkTotalUnreadyCount)
	errs = append(errs, o.validateExpanders()...)
	errs = append(errs, o.ScaleDown.validate()...)
	errs = append(errs, o.Balancing.validate()...)
	errs = append(errs, o.validatePendingPods()...)
	return errors.Join(errs...)
}

func (o *Options) validateExpanders() []error {
	if len(o.Expanders) == 0 {
		return []error{&FlagError{Flag: "expander", Msg: "must name at least one expander"}}
	}
	var errs []error
	for i, e := range o.Expanders {
		if !slices.Contains(knownExpanders, e) {
			errs = append(errs, &FlagError{Flag: "expander", Msg: fmt.Sprintf("unknown expander %q (known: %v)", e, knownExpanders)})
		}
		if slices.Contains(o.Expanders[:i], e) {
			errs = append(errs, &FlagError{Flag: "expander", Msg: fmt.Sprintf("expander %q listed twice", e)})
		}
	}
	return append(errs, o.validateGRPCExpander()...)
}

// validateGRPCExpander requires the server's address and certificate with
// --expander=grpc (upstream refuses plain text too) and refuses them
// without it, where they would have no effect.
func (o *Options) validateGRPCExpander() []error {
	var errs []error
	grpc := slices.Contains(o.Expanders, ExpanderGRPC)
	for _, f := range []struct{ flag, value string }{{"grpc-expander-url", o.GRPCExpanderURL}, {"grpc-expander-cert", o.GRPCExpanderCert}} {
		switch {
		case grpc && f.value == "":
			errs = append(errs, &FlagError{Flag: f.flag, Msg: "required with --expander=grpc"})
		case !grpc && f.value != "":
			errs = append(errs, &FlagError{Flag: f.flag, Msg: "only used with --expander=grpc"})
		}
	}
	return errs
}

func (s *ScaleDownOptions) validate() []error {
	var errs []error
	bad := func(cond bool, flag, format string, args ...any) {
		if cond {
			errs = append(errs, &FlagError{Flag: flag, Msg: fmt.Sprintf(format, args...)})
		}
	}
	bad(s.DelayAfterDelete < 0, "scale-down-delay-after-delete", "must not be negative, got %v", s.DelayAfterDelete)
	bad(s.DelayAfterFailure < 0, "scale-down-delay-after-failure", "must not be negative, got %v", s.DelayAfterFailure)
	bad(s.UnneededTime < 0, "scale-down-unneeded-time", "must not be negative, got %v", s.UnneededTime)
	bad(s.UnreadyTime < 0, "scale-down-unready-time", "must not be negative, got %v", s.UnreadyTime)
	bad(!(s.UtilizationThreshold >= 0 && s.UtilizationThreshold <= 1), "scale-down-utilization-threshold", "must be within [0, 1], got %v", s.UtilizationThreshold)
	bad(!(s.GPUUtilizationThreshold >= 0 && s.GPUUtilizationThreshold <= 1), "scale-down-gpu-utilization-threshold", "must be within [0, 1], got %v", s.GPUUtilizationThreshold)
	bad(s.MaxEmptyBulkDelete <= 0, "max-empty-bulk-delete", "must be positive, got %d", s.MaxEmptyBulkDelete)
	bad(s.MaxScaleDownParallelism < 1, "max-scale-down-parallelism", "must be at least 1, got %d", s.MaxScaleDownParallelism)
	bad(s.MaxDrainParallelism < 1, "max-drain-parallelism", "must be at least 1, got %d", s.MaxDrainParallelism)
	bad(s.MaxPodEvictionTime <= 0, "max-pod-eviction-time", "must be positive, got %v", s.MaxPodEvictionTime)
	bad(s.MaxGracefulTerminationSec < 0, "max-graceful-termination-sec", "must not be negative, got %d", s.MaxGracefulTerminationSec)
	bad(s.NodeDeleteDelayAfterTaint < 0, "node-delete-delay-after-taint", "must not be negative, got %v", s.NodeDeleteDelayAfterTaint)
	bad(s.NodeDeletionDelayTimeout < 0, "node-deletion-delay-timeout", "must not be negative, got %v", s.NodeDeletionDelayTimeout)
	bad(s.MaxBulkSoftTaintCount < 0, "max-bulk-soft-taint-count", "must not be negative, got %d", s.MaxBulkSoftTaintCount)
	bad(s.MaxBulkSoftTaintTime < 0, "max-bulk-soft-taint-time", "must not be negative, got %v", s.MaxBulkSoftTaintTime)
	if _, err := ParseDrainPriorities(s.DrainPriorityConfig); err != nil {
		bad(true, "drain-priority-config", "%v", err)
	} else {
		bad(s.DrainPriorityConfig != "" && s.MaxGracefulTerminationSec != defaultMaxGracefulTerminationSec, "drain-priority-config",
			"cannot be combined with --max-graceful-termination-sec (%d, want the default %d), as upstream", s.MaxGracefulTerminationSec, defaultMaxGracefulTerminationSec)
	}
	bad(s.MinReplicaCount < 0, "min-replica-count", "must not be negative, got %d", s.MinReplicaCount)
	bad(s.BlockingSystemPodDisruptionTimeout < 0, "blocking-system-pod-distruption-timeout", "must not be negative, got %v", s.BlockingSystemPodDisruptionTimeout)
	bad(!(s.CandidatesPoolRatio >= 0 && s.CandidatesPoolRatio <= 1), "scale-down-candidates-pool-ratio", "must be within [0, 1], got %v", s.CandidatesPoolRatio)
	bad(s.CandidatesPoolMinCount < 0, "scale-down-candidates-pool-min-count", "must not be negative, got %d", s.CandidatesPoolMinCount)
	bad(s.UnremovableRecheckTimeout < 0, "unremovable-node-recheck-timeout", "must not be negative, got %v", s.UnremovableRecheckTimeout)
	bad(s.SimulationTimeout <= 0, "scale-down-simulation-timeout", "must be positive, got %v", s.SimulationTimeout)
	return errs
}
