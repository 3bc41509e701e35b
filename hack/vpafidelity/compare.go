package vpafidelity

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
)

// Diff is one disagreement between upstream and kscale.
type Diff struct {
	// Kind is what disagrees: accepted, containers, histogram, bounds,
	// recommendation, checkpoint, load-upstream-checkpoint or load-kscale-checkpoint.
	Kind string
	// Container is the container name, or empty.
	Container string
	// Detail gives both values.
	Detail string
}

// String returns "kind container: detail".
func (d Diff) String() string { return fmt.Sprintf("%s %s: %s", d.Kind, d.Container, d.Detail) }

// relTolerance absorbs float summation order: upstream merges aggregates in
// map order, so upstream alone is not bit-reproducible.
const relTolerance = 1e-9

// Deliberate is the kind prefix of differences docs/vpa.md names as
// deliberate; they are counted, never failures.
const Deliberate = "deliberate-"

// Open is the kind prefix of differences docs/vpa.md lists as open
// findings that change no decision (texts); they are counted, never failures.
const Open = "open-"

// counted reports whether d is counted rather than a failure.
func counted(d Diff) bool {
	return strings.HasPrefix(d.Kind, Deliberate) || strings.HasPrefix(d.Kind, Open)
}

// subEpsilon is the histograms' epsilon (upstream's and kscale's).
const subEpsilon = 1e-4

// Compare runs s through both sides and returns every disagreement that
// is not a documented deliberate difference.
func Compare(s *Stream) []Diff {
	return slices.DeleteFunc(CompareAll(s), counted)
}

// CompareAll runs s through both sides and returns every difference,
// deliberate ones included.
func CompareAll(s *Stream) []Diff {
	up, ks := Upstream{}.Run(s), Kscale{}.Run(s)
	var out []Diff
	add := func(kind, c, format string, a ...any) {
		out = append(out, Diff{Kind: kind, Container: c, Detail: fmt.Sprintf(format, a...)})
	}
	for i := range up.Accepted {
		if up.Accepted[i] != ks.Accepted[i] {
			add("accepted", ContainerName(s.Events[i].Container), "event %d (%s at +%s): upstream %v, kscale %v",
				i, s.Events[i].Kind, s.Events[i].At, up.Accepted[i], ks.Accepted[i])
		}
	}
	if a, b := slices.Sorted(maps.Keys(up.States)), slices.Sorted(maps.Keys(ks.States)); !slices.Equal(a, b) {
		add("containers", "", "upstream %v, kscale %v", a, b)
	}
	for _, name := range slices.Sorted(maps.Keys(up.States)) {
		if k, ok := ks.States[name]; ok {
			compareState(add, name, up.States[name], k)
		}
		compareBounds(add, "bounds", name, up.Bounds[name], ks.Bounds[name])
		compareRecommendation(add, name, up.Recommendation[name], ks.Recommendation[name])
	}
	compareCheckpoints(add, "checkpoint", up.Checkpoints, ks.Checkpoints, up.CheckpointScale)
	for _, from := range []struct {
		kind string
		cps  map[string]vpav1.VerticalPodAutoscalerCheckpointStatus
	}{{"load-upstream-checkpoint", up.Checkpoints}, {"load-kscale-checkpoint", ks.Checkpoints}} {
		lu, lk := Upstream{}.Load(s, from.cps), Kscale{}.Load(s, from.cps)
		if lu.Err != "" || lk.Err != "" {
			if (lu.Err == "") != (lk.Err == "") {
				add(from.kind, "", "upstream error %q, kscale error %q", lu.Err, lk.Err)
			}
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(lu.Bounds)) {
			compareBounds(add, from.kind, name, lu.Bounds[name], lk.Bounds[name])
		}
		compareCheckpoints(add, from.kind, lu.Checkpoints, lk.Checkpoints, nil)
	}
	return out
}

type adder func(kind, container, format string, a ...any)

func compareState(add adder, name string, u, k State) {
	compareHistogram(add, "histogram", name+" cpu", &u.CPU, &k.CPU, 0)
	compareHistogram(add, "histogram", name+" memory", &u.Memory, &k.Memory, 0)
	for i, p := range percentilePoints {
		if !near(u.CPUPercentiles[i], k.CPUPercentiles[i]) || !near(u.MemoryPercentiles[i], k.MemoryPercentiles[i]) {
			add("histogram", name, "percentile %v: cpu upstream %v kscale %v, memory upstream %v kscale %v",
				p, u.CPUPercentiles[i], k.CPUPercentiles[i], u.MemoryPercentiles[i], k.MemoryPercentiles[i])
		}
	}
	if !u.First.Equal(k.First) || !u.Last.Equal(k.Last) || u.Samples != k.Samples {
		add("histogram", name, "first/last/samples: upstream %s %s %d, kscale %s %s %d",
			u.First, u.Last, u.Samples, k.First, k.Last, k.Samples)
	}
}

// compareHistogram compares two histograms in stored form: reference
// time exactly, total weight within relTolerance of the larger of itself
// and scale, bucket weights within 1 (they are rounded after scaling).
// scale is the largest weight the total was computed from (0 when it is
// the total itself): after a subtraction of nearly all of it, the total is
// only known to within the rounding of that weight.
func compareHistogram(add adder, kind, name string, u, k *vpav1.HistogramCheckpoint, scale float64) {
	if !u.ReferenceTimestamp.Equal(&k.ReferenceTimestamp) {
		add(kind, name, "reference time: upstream %s, kscale %s", u.ReferenceTimestamp.UTC(), k.ReferenceTimestamp.UTC())
	}
	if !near(u.TotalWeight, k.TotalWeight) && math.Abs(u.TotalWeight-k.TotalWeight) > relTolerance*scale {
		add(kind, name, "total weight: upstream %v, kscale %v", u.TotalWeight, k.TotalWeight)
	}
	keys := map[int]bool{}
	for b := range u.BucketWeights {
		keys[b] = true
	}
	for b := range k.BucketWeights {
		keys[b] = true
	}
	sum := 0.0
	for _, v := range u.BucketWeights {
		sum += float64(v)
	}
	var bad, stale []string
	for _, b := range slices.Sorted(maps.Keys(keys)) {
		d := int64(u.BucketWeights[b]) - int64(k.BucketWeights[b])
		switch {
		case d <= 1 && d >= -1:
		case k.BucketWeights[b] == 0 && float64(u.BucketWeights[b])/sum*u.TotalWeight < subEpsilon:
			stale = append(stale, fmt.Sprintf("%d: %d/0", b, u.BucketWeights[b]))
		default:
			bad = append(bad, fmt.Sprintf("%d: %d/%d", b, u.BucketWeights[b], k.BucketWeights[b]))
		}
	}
	if len(bad) > 0 {
		add(kind, name, "bucket weights (bucket: upstream/kscale) %v", bad)
	}
	if len(stale) > 0 {
		add(Deliberate+"sub-epsilon-weights", name, "%s: weights below epsilon that upstream keeps outside its bucket range and brings back (bucket: upstream/kscale) %v", kind, stale)
	}
}

func compareBounds(add adder, kind, name string, u, k Bounds) {
	if u != k {
		add(kind, name, "upstream %+v, kscale %+v", u, k)
	}
}

func compareRecommendation(add adder, name string, u, k vpav1.RecommendedContainerResources) {
	lists := []struct {
		what string
		u, k corev1.ResourceList
	}{{"target", u.Target, k.Target}, {"lowerBound", u.LowerBound, k.LowerBound},
		{"upperBound", u.UpperBound, k.UpperBound}, {"uncappedTarget", u.UncappedTarget, k.UncappedTarget}}
	for _, l := range lists {
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			uq, uok := l.u[r]
			kq, kok := l.k[r]
			if uok != kok || uq.Cmp(kq) != 0 {
				add("recommendation", name, "%s %s: upstream %s, kscale %s", l.what, r, uq.String(), kq.String())
			}
		}
	}
}

// compareCheckpoints compares the checkpoints of both sides; scale gives
// per container name the memory total before the open windows' peaks were
// subtracted (see compareHistogram), nil when nothing was subtracted.
func compareCheckpoints(add adder, kind string, u, k map[string]vpav1.VerticalPodAutoscalerCheckpointStatus, scale map[string]float64) {
	names := slices.Sorted(maps.Keys(u))
	if kn := slices.Sorted(maps.Keys(k)); !slices.Equal(names, kn) {
		add(kind, "", "containers: upstream %v, kscale %v", names, kn)
		return
	}
	for _, name := range names {
		uc, kc := u[name], k[name]
		compareHistogram(add, kind, name+" cpu", &uc.CPUHistogram, &kc.CPUHistogram, 0)
		compareHistogram(add, kind, name+" memory", &uc.MemoryHistogram, &kc.MemoryHistogram, scale[name])
		if uc.Version != kc.Version || !uc.FirstSampleStart.Equal(&kc.FirstSampleStart) ||
			!uc.LastSampleStart.Equal(&kc.LastSampleStart) || uc.TotalSamplesCount != kc.TotalSamplesCount {
			add(kind, name, "version/first/last/samples: upstream %s %s %s %d, kscale %s %s %s %d",
				uc.Version, uc.FirstSampleStart.UTC(), uc.LastSampleStart.UTC(), uc.TotalSamplesCount,
				kc.Version, kc.FirstSampleStart.UTC(), kc.LastSampleStart.UTC(), kc.TotalSamplesCount)
		}
	}
}

// near reports whether a and b are equal within relTolerance.
func near(a, b float64) bool {
	return a == b || math.Abs(a-b) <= relTolerance*math.Max(math.Abs(a), math.Abs(b))
}

// Kinds returns the sorted distinct kinds of ds.
func Kinds(ds []Diff) []string {
	set := map[string]bool{}
	for _, d := range ds {
		set[d.Kind] = true
	}
	out := slices.Collect(maps.Keys(set))
	sort.Strings(out)
	return out
}
