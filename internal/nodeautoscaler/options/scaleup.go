package options

import (
	"fmt"
	"math"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/validation"
)

// BalancingOptions decide which node groups --balance-similar-node-groups
// treats as similar, as upstream's node group set comparators do.
type BalancingOptions struct {
	// Labels is --balancing-label: when set, two groups are similar when
	// their templates carry equal values of exactly these labels, and
	// nothing else is compared.
	Labels []string
	// IgnoredLabels is --balancing-ignore-label: labels that may differ
	// between similar groups, on top of the built-in set.
	IgnoredLabels []string
	// MaxAllocatableDifferenceRatio is --max-allocatable-difference-ratio:
	// the largest relative difference of each allocatable resource.
	MaxAllocatableDifferenceRatio float64
	// MaxFreeDifferenceRatio is --max-free-difference-ratio: the largest
	// relative difference of each resource left free once the template's
	// DaemonSet pods are placed.
	MaxFreeDifferenceRatio float64
	// MemoryDifferenceRatio is --memory-difference-ratio: the largest
	// relative difference of memory capacity (other capacities must be
	// equal).
	MemoryDifferenceRatio float64
}

func (b *BalancingOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringArrayVar(&b.Labels, "balancing-label", b.Labels, "Compare node groups only by this label when balancing (repeatable); replaces every other comparison")
	fs.StringArrayVar(&b.IgnoredLabels, "balancing-ignore-label", b.IgnoredLabels, "Label that may differ between similar node groups (repeatable)")
	fs.Float64Var(&b.MaxAllocatableDifferenceRatio, "max-allocatable-difference-ratio", b.MaxAllocatableDifferenceRatio, "Largest relative allocatable difference of similar node groups")
	fs.Float64Var(&b.MaxFreeDifferenceRatio, "max-free-difference-ratio", b.MaxFreeDifferenceRatio, "Largest relative free-resource difference of similar node groups")
	fs.Float64Var(&b.MemoryDifferenceRatio, "memory-difference-ratio", b.MemoryDifferenceRatio, "Largest relative memory capacity difference of similar node groups")
}

func (b *BalancingOptions) validate() []error {
	var errs []error
	ratio := func(v float64, flag string) {
		if math.IsNaN(v) || v < 0 || v > 1 {
			errs = append(errs, &FlagError{Flag: flag, Msg: fmt.Sprintf("must be within [0, 1], got %v", v)})
		}
	}
	ratio(b.MaxAllocatableDifferenceRatio, "max-allocatable-difference-ratio")
	ratio(b.MaxFreeDifferenceRatio, "max-free-difference-ratio")
	ratio(b.MemoryDifferenceRatio, "memory-difference-ratio")
	label := func(keys []string, flag string) {
		for _, k := range keys {
			if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
				errs = append(errs, &FlagError{Flag: flag, Msg: fmt.Sprintf("%q is not a label key: %s", k, msgs[0])})
			}
		}
	}
	label(b.Labels, "balancing-label")
	label(b.IgnoredLabels, "balancing-ignore-label")
	return errs
}

// addPendingPodFlags registers the flags that decide which pods count as
// pending and the one that keeps groups at their minimum size.
func (o *Options) addPendingPodFlags(fs *pflag.FlagSet) {
	fs.StringSliceVar(&o.AllowedSchedulerNames, "allowed-scheduler-names", o.AllowedSchedulerNames,
		"When set, only pending pods of these schedulers are considered for scale-up (comma-separated)")
	fs.StringSliceVar(&o.BypassedSchedulerNames, "bypassed-scheduler-names", o.BypassedSchedulerNames,
		"Schedulers whose unprocessed pods count as pending at once, without waiting for the scheduler to mark them unschedulable (comma-separated)")
	fs.BoolVar(&o.ScaleUpUnprocessedTwins, "scale-up-unprocessed-twins", o.ScaleUpUnprocessedTwins,
		"Count a pod the scheduler has not tried yet as pending when a pod of the same controller with the same scheduling-relevant spec was marked unschedulable, so one scale-up covers a burst (false: wait for every pod's mark, as upstream)")
	fs.BoolVar(&o.EnforceNodeGroupMinSize, "enforce-node-group-min-size", o.EnforceNodeGroupMinSize,
		"Scale node groups whose target size is below their minimum up to it")
}

func (o *Options) validatePendingPods() []error {
	var errs []error
	names := func(list []string, flag string) {
		for _, n := range list {
			if n == "" {
				errs = append(errs, &FlagError{Flag: flag, Msg: "must not contain an empty scheduler name"})
			}
		}
	}
	names(o.AllowedSchedulerNames, "allowed-scheduler-names")
	names(o.BypassedSchedulerNames, "bypassed-scheduler-names")
	return errs
}
