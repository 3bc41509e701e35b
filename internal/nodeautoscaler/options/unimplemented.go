package options

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"
)

// unimplementedFlag is an upstream Cluster Autoscaler flag kscale does not
// implement yet. It is registered with upstream's name, type and default so
// that command lines passing the default run unchanged; any other value is
// refused at parse time, naming the flag, instead of being ignored.
type unimplementedFlag struct {
	name  string
	def   any // bool, int, float64, string, time.Duration, or []string for a repeatable flag
	usage string
}

// unimplementedFlags lists them (shared/specs/compatibility.md §2; the
// provider-specific flags of aws and clusterapi belong to those providers).
var unimplementedFlags = []unimplementedFlag{
	{"cluster-name", "", "Autoscaled cluster name, handed to some providers"},
	{"debugging-snapshot-enabled", false, "Serve /snapshotz"},
	{"kubernetes", "", "API server URL override"},
	{"gpu-total", []string{}, "Minimum and maximum GPUs per type, as type:min:max (repeatable)"},
	{"async-node-groups", false, "Create and delete node groups asynchronously"},
	{"node-info-cache-expire-time", 87600 * time.Hour, "Time to live of cached node templates"},
	{"parallel-scale-up", false, "Scale several node groups at once"},
	{"predicate-parallelism", 4, "Workers for scheduler predicate checks"},
	{"cluster-snapshot-parallelism", 16, "Deprecated alias of the predicate parallelism"},
	{"scheduler-config-file", "", "KubeSchedulerConfiguration for the simulated scheduler"},
	{"enable-csi-node-aware-scheduling", false, "Consider CSINode volume limits"},
	{"enable-dynamic-resource-allocation", true, "Handle DRA objects"},
	{"enable-graceful-degradation", false, "Cut the pending-pod simulation off at a timeout"},
	{"enable-inter-pod-affinity-hostname-fast-path", false, "Scheduler plugin fast path"},
	{"enable-proactive-scaleup", false, "Scale up for pods not yet created"},
	{"fastpath-binpacking-enabled", false, "Faster binpacking variant"},
	{"force-ds", false, "Refuse groups whose template cannot fit all DaemonSet pods"},
	{"pending-pods-batching-timeout", 4 * time.Minute, "Time budget for filtering schedulable pods"},
	{"pod-injection-limit", 5000, "Cap on injected fake pods"},
	{"salvo-scale-up", false, "Several scale-ups per loop"},
	{"salvo-scale-up-budget", time.Minute, "Time budget of salvo scale-ups"},
	{"scale-from-unschedulable", false, "Ignore spec.unschedulable in templates"},
	{"scaleup-simulation-for-skipped-node-groups-enabled", false, "Also simulate node groups skipped for other reasons"},
	{"scheduler-verbosity", 0, "Verbosity offset of scheduler-framework logs"},
	{"node-deletion-batcher-interval", time.Duration(0), "Collect deletions per node group for this long"},
	{"dynamic-node-delete-delay-after-taint-enabled", false, "Adapt the wait after tainting to API latency"},
	{"max-node-skip-eval-time-tracker-enabled", false, "Export the longest skipped-evaluation time"},
	{"node-deletion-candidate-ttl", time.Duration(0), "How long soft-taint candidate marks stay valid"},
	{"force-delete-failed-nodes", false, "Delete failed instances even below the minimum size"},
	{"force-delete-unregistered-nodes", false, "Delete long-unregistered instances even below the minimum size"},
	{"capacity-buffer-controller-enabled", false, "Run the CapacityBuffer controller"},
	{"capacity-buffer-pod-dry-run-enabled", true, "Build buffer pods by server dry-run"},
	{"capacity-buffer-pod-injection-enabled", false, "Inject fake pods for ready buffers"},
	{"capacity-quotas-enabled", false, "Honour CapacityQuota objects"},
	{"check-capacity-batch-processing", false, "Batch check-capacity ProvisioningRequests"},
	{"check-capacity-processor-instance", "", "Only handle ProvisioningRequests naming this instance"},
	{"check-capacity-provisioning-request-batch-timebox", 10 * time.Second, "Batch time budget"},
	{"check-capacity-provisioning-request-max-batch-size", 10, "Batch size"},
	{"enable-provisioning-requests", false, "Serve ProvisioningRequest objects"},
	{"provisioning-request-initial-backoff-time", time.Minute, "ProvisioningRequest retry backoff start"},
	{"provisioning-request-max-backoff-cache-size", 1000, "ProvisioningRequest backoff cache size"},
	{"provisioning-request-max-backoff-time", 10 * time.Minute, "ProvisioningRequest retry backoff cap"},
	{"bulk-mig-instances-listing-enabled", false, "GCE: list MIG instances in bulk"},
	{"gce-concurrent-refreshes", 1, "GCE: refresh concurrency"},
	{"gce-mig-instances-min-refresh-wait-time", 5 * time.Second, "GCE: least interval between MIG instance refreshes"},
	{"regional", false, "GCE: regional cluster"},
}

// UnimplementedFlagNames lists the upstream flags that take only their
// default value, in registration order.
func UnimplementedFlagNames() []string {
	names := make([]string, len(unimplementedFlags))
	for i, f := range unimplementedFlags {
		names[i] = f.name
	}
	return names
}

// addUnimplementedFlags registers every unimplemented flag on fs.
func addUnimplementedFlags(fs *pflag.FlagSet) {
	for _, f := range unimplementedFlags {
		usage := f.usage + " (upstream flag: kscale accepts only the default)"
		switch def := f.def.(type) {
		case bool:
			fs.Bool(f.name, def, usage)
		case int:
			fs.Int(f.name, def, usage)
		case float64:
			fs.Float64(f.name, def, usage)
		case string:
			fs.String(f.name, def, usage)
		case time.Duration:
			fs.Duration(f.name, def, usage)
		case []string:
			fs.StringArray(f.name, def, usage)
		default:
			panic(fmt.Sprintf("unimplemented flag --%s: unsupported default type %T", f.name, f.def))
		}
		flag := fs.Lookup(f.name)
		flag.Value = &defaultOnly{Value: flag.Value, def: flag.DefValue}
	}
}

// defaultOnly wraps a flag's value and refuses any value but the default.
type defaultOnly struct {
	pflag.Value
	def string
}

// Set parses s and refuses it unless it equals the default; a refused value
// fails the parse.
func (d *defaultOnly) Set(s string) error {
	if err := d.Value.Set(s); err != nil {
		return err
	}
	if got := d.String(); got != d.def {
		return fmt.Errorf("kscale does not implement this upstream flag yet; only its default %s is accepted", d.def)
	}
	return nil
}
