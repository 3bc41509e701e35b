package whatif

import (
	"github.com/kscale/kscale/internal/scenario"
)

// Kind is the kind of a what-if file (apiVersion scenario.APIVersion).
const Kind = "WorkloadWhatIf"

// File is one parsed and validated what-if file.
type File struct {
	// APIVersion must be scenario.APIVersion.
	APIVersion string `yaml:"apiVersion"`
	// Kind must be Kind.
	Kind string `yaml:"kind"`
	// Name names the what-if in output.
	Name string `yaml:"name"`
	// Description says what it shows.
	Description string `yaml:"description"`
	// Duration is how long every configuration runs.
	Duration scenario.Duration `yaml:"duration"`
	// Step is the simulation's resolution (default 30s).
	Step scenario.Duration `yaml:"step"`
	// Seed seeds the trace generator's noise.
	Seed uint64 `yaml:"seed"`
	// Workload is the simulated workload.
	Workload Workload `yaml:"workload"`
	// Trace is the request load over time.
	Trace Trace `yaml:"trace"`
	// NodeSize is the allocatable of one node, for the nodes-needed figure.
	NodeSize scenario.Resources `yaml:"nodeSize"`
	// Configurations are the autoscaling set-ups compared.
	Configurations []Configuration `yaml:"configurations"`
	// Expect are the assertions --check evaluates.
	Expect []Expectation `yaml:"expect"`
	// Dir is the directory relative file paths resolve against. Set by the caller.
	Dir string `yaml:"-"`
}

// Workload is a kube-apiserver-like workload.
type Workload struct {
	// Name names the workload's pods.
	Name string `yaml:"name"`
	// Categories are the request categories with their CPU cost.
	Categories []Category `yaml:"categories"`
	// BaseCPU is each replica's CPU use without load.
	BaseCPU Quantity `yaml:"baseCPU"`
	// BaseMemory is each replica's memory use without load.
	BaseMemory Quantity `yaml:"baseMemory"`
	// MemoryPerRequestRate is the memory added per request/s the replica serves.
	MemoryPerRequestRate Quantity `yaml:"memoryPerRequestRate"`
	// StartupTime is how long a new replica takes to become ready.
	StartupTime scenario.Duration `yaml:"startupTime"`
	// NodeHeadroom is the spare CPU a replica's node has beyond its request:
	// CPU demand above request + headroom goes unserved.
	NodeHeadroom Quantity `yaml:"nodeHeadroom"`
	// Efficiency are periods in which each request costs 1/factor as much CPU.
	Efficiency []EfficiencyDrop `yaml:"efficiency"`
}

// Category is one request category.
type Category struct {
	// Name is the category, matching a trace column.
	Name string `yaml:"name"`
	// CPUPerRequest is the CPU time one request costs (CPU-seconds, e.g. 5m).
	CPUPerRequest Quantity `yaml:"cpuPerRequest"`
}

// EfficiencyDrop multiplies the compute per CPU by Factor for a while.
type EfficiencyDrop struct {
	// At is when it starts.
	At scenario.Duration `yaml:"at"`
	// For is how long it lasts.
	For scenario.Duration `yaml:"for"`
	// Factor is the efficiency in (0, 1]: 0.5 halves throughput per CPU.
	Factor float64 `yaml:"factor"`
}

// Trace is the load: a file or a generator.
type Trace struct {
	// File is a CSV (time column, then one rate column per category) or a
	// Prometheus query_range JSON export.
	File string `yaml:"file"`
	// CategoryLabels name the labels that form a category from a
	// Prometheus series (default verb, scope, resource joined by "/").
	CategoryLabels []string `yaml:"categoryLabels"`
	// Generate builds the trace from a shape.
	Generate *Generator `yaml:"generate"`
}

// Generator shapes a synthetic trace.
type Generator struct {
	// Rates are each category's base request rate (req/s).
	Rates map[string]float64 `yaml:"rates"`
	// Diurnal is a daily cycle.
	Diurnal *Diurnal `yaml:"diurnal"`
	// WeekendFactor scales Saturdays and Sundays (day 5 and 6 of the run); 0 = 1.
	WeekendFactor float64 `yaml:"weekendFactor"`
	// Spikes multiply the load for a while.
	Spikes []Spike `yaml:"spikes"`
	// Steps multiply the load from a time on.
	Steps []Step `yaml:"steps"`
	// Noise is the relative standard deviation of random noise (0 = none).
	Noise float64 `yaml:"noise"`
}

// Diurnal is a sinusoidal daily cycle.
type Diurnal struct {
	// Amplitude is the relative swing: rate × (1 + A·cos(...)).
	Amplitude float64 `yaml:"amplitude"`
	// Peak is the time of day of the maximum.
	Peak scenario.Duration `yaml:"peak"`
}

// Spike multiplies the Load by Factor from At for For.
type Spike struct {
	// At is when it starts.
	At scenario.Duration `yaml:"at"`
	// For is how long it lasts.
	For scenario.Duration `yaml:"for"`
	// Factor multiplies every category's rate.
	Factor float64 `yaml:"factor"`
}

// Step multiplies the Load by Factor from At on.
type Step struct {
	// At is when it starts.
	At scenario.Duration `yaml:"at"`
	// Factor multiplies every category's rate.
	Factor float64 `yaml:"factor"`
}

// Configuration is one autoscaling set-up.
type Configuration struct {
	// Name names it in output.
	Name string `yaml:"name"`
	// Replicas is the initial replica count.
	Replicas int32 `yaml:"replicas"`
	// Requests are the initial requests per replica (cpu, memory).
	Requests scenario.Resources `yaml:"requests"`
	// HPA scales horizontally.
	HPA *HPA `yaml:"hpa"`
	// VPA scales vertically (kscale's recommender and updater).
	VPA *VPA `yaml:"vpa"`
	// HVPA is gardener/hvpa-controller's combined scaler.
	HVPA *HVPA `yaml:"hvpa"`
}
