package vpafidelity

import (
	"fmt"
	"strings"
	"time"
)

// Flags are the recommender flags one stream runs with, on both sides.
type Flags struct {
	CPUHalfLife, MemoryHalfLife       time.Duration
	MemoryInterval                    time.Duration
	MemoryIntervalCount               int64
	OOMBumpUpRatio, OOMMinBumpUpBytes float64
	TargetCPU, LowerCPU, UpperCPU     float64
	TargetMemory, LowerMemory         float64
	UpperMemory                       float64
	Margin                            float64
	ConfidenceCPU, ConfidenceMemory   time.Duration
	PodMinCPUMillicores               int64
	PodMinMemoryMB                    int64
	RoundCPUMillicores                int64
	RoundMemoryBytes                  int64
	// MaxCPUMillicores and MaxMemoryBytes are --container-recommendation-max-allowed-*
	// (0 = unset).
	MaxCPUMillicores, MaxMemoryBytes int64
}

// UpstreamDefaults returns upstream VPA 1.7's recommender defaults.
func UpstreamDefaults() Flags {
	return Flags{
		CPUHalfLife: 24 * time.Hour, MemoryHalfLife: 24 * time.Hour,
		MemoryInterval: 24 * time.Hour, MemoryIntervalCount: 8,
		OOMBumpUpRatio: 1.2, OOMMinBumpUpBytes: 100 * 1024 * 1024,
		TargetCPU: 0.9, LowerCPU: 0.5, UpperCPU: 0.95,
		TargetMemory: 0.9, LowerMemory: 0.5, UpperMemory: 0.95,
		Margin:        0.15,
		ConfidenceCPU: 24 * time.Hour, ConfidenceMemory: 24 * time.Hour,
		PodMinCPUMillicores: 25, PodMinMemoryMB: 250,
		RoundCPUMillicores: 1, RoundMemoryBytes: 1,
	}
}

// GardenerFlags returns the flags Gardener runs the recommender with
// (internal/cli/conformance_test.go, case 1.5).
func GardenerFlags() Flags {
	f := UpstreamDefaults()
	f.PodMinCPUMillicores, f.PodMinMemoryMB = 10, 10
	f.MaxCPUMillicores, f.MaxMemoryBytes = 4000, 8<<30
	return f
}

// Kind is what an event does.
type Kind int

// The event kinds.
const (
	// CPU is a CPU usage sample in millicores.
	CPU Kind = iota
	// Memory is a working-set sample in bytes.
	Memory
	// OOM is an OOM kill of a container whose memory request is Value bytes.
	OOM
	// Restart replaces the pod in the slot by a new pod (new name, same labels).
	Restart
)

var kindNames = [...]string{"cpu", "memory", "oom", "restart"}

// String returns the kind's name.
func (k Kind) String() string { return kindNames[k] }

// Event is one input of a stream, At after the stream's start.
type Event struct {
	At        time.Duration
	Kind      Kind
	Pod       int
	Container int
	Value     int64
}

// Stream is one random input: flags, pods (slots with a label variant each),
// containers per pod, events in time order, and the time (End after the
// start) at which recommendations and checkpoints are taken.
type Stream struct {
	Seed       int64
	Flags      Flags
	Start      time.Time
	Containers int
	// Variants holds each pod slot's label variant; pods of different
	// variants feed different aggregates of one VPA.
	Variants []int
	Events   []Event
	End      time.Duration
}

// ContainerName returns the name of container i.
func ContainerName(i int) string { return fmt.Sprintf("c%d", i) }

// String prints the stream as a reproducer: flags, layout and events.
func (s *Stream) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d start %s containers %d pod variants %v end +%s\nflags %+v\n",
		s.Seed, s.Start.Format(time.RFC3339Nano), s.Containers, s.Variants, s.End, s.Flags)
	for _, e := range s.Events {
		fmt.Fprintf(&b, "  +%-14s %-7s pod %d %s %d\n", e.At, e.Kind, e.Pod, ContainerName(e.Container), e.Value)
	}
	return b.String()
}

// clone returns a deep copy.
func (s *Stream) clone() *Stream {
	c := *s
	c.Variants = append([]int(nil), s.Variants...)
	c.Events = append([]Event(nil), s.Events...)
	return &c
}
