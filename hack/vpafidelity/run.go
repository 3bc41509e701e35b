package vpafidelity

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Finding is a stream whose disagreement no pending defect explains,
// shrunk to a small reproducer.
type Finding struct {
	Seed   int64
	Kinds  []string
	Shrunk *Stream
	Diffs  []Diff
}

// Report sums up a run.
type Report struct {
	Streams, Agree int
	// Known counts streams per set of pending defects that explain them.
	Known map[string]int
	// KnownKinds and NewKinds count disagreements by kind.
	KnownKinds, NewKinds map[string]int
	// OrderDependent counts streams where some runs of upstream agree with
	// kscale and others do not: upstream merges a VPA's aggregates in Go
	// map order, and its merge drops different sub-epsilon weights per order.
	OrderDependent int
	// Revived counts streams whose sides agree once the samples that may
	// decay below epsilon are left out (SubEpsilonPercentile).
	Revived int
	// Deliberate counts streams per documented deliberate difference.
	Deliberate map[string]int
	// New lists unexplained streams (the first maxShrunk are shrunk).
	New     []Finding
	Elapsed time.Duration
}

// maxShrunk bounds how many findings of one run are shrunk.
const maxShrunk = 5

// Run compares n streams of seeds first, first+1, ...
func Run(first int64, n int) *Report {
	start := time.Now()
	r := &Report{Known: map[string]int{}, KnownKinds: map[string]int{}, NewKinds: map[string]int{}, Deliberate: map[string]int{}}
	for seed := first; seed < first+int64(n); seed++ {
		r.Streams++
		s := Generate(seed)
		all := CompareAll(s)
		ds := slices.DeleteFunc(slices.Clone(all), counted)
		if len(all) > len(ds) {
			count(r.Deliberate, slices.DeleteFunc(all, func(d Diff) bool { return !counted(d) }))
		}
		if len(ds) == 0 {
			r.Agree++
			continue
		}
		if known := Classify(s, ds); known != nil {
			r.Known[fmt.Sprint(known)]++
			count(r.KnownKinds, ds)
			continue
		}
		res := stableResidual(s)
		if len(res) == 0 {
			r.OrderDependent++
			continue
		}
		if n := withoutDecayedSamples(s); n != nil && len(stableResidual(n)) == 0 {
			r.Revived++
			continue
		}
		count(r.NewKinds, res)
		f := Finding{Seed: seed, Kinds: Kinds(res)}
		if len(r.New) < maxShrunk {
			kind := f.Kinds[0]
			f.Shrunk = Shrink(s, func(c *Stream) bool {
				_, d := Residual(c)
				return slices.Contains(Kinds(d), kind)
			})
			_, f.Diffs = Residual(f.Shrunk)
		}
		r.New = append(r.New, f)
	}
	r.Elapsed = time.Since(start)
	return r
}

// upstreamRuns is how often a disagreement is retried before it counts.
const upstreamRuns = 64

// stableResidual returns the residual disagreements of s that every one
// of upstreamRuns runs of upstream shows. Upstream merges a VPA's
// aggregates in Go map order, and each container name's result depends
// only on the order of its own aggregates; so a container counts as
// agreeing when some run agrees on it, which shows kscale's result for it
// is one upstream produces.
func stableResidual(s *Stream) []Diff {
	clean := map[string]bool{}
	var last []Diff
	for range upstreamRuns {
		_, res := Residual(s)
		if len(res) == 0 {
			return nil
		}
		bad := map[string]bool{}
		for _, d := range res {
			bad[containerOf(d)] = true
		}
		for i := range s.Containers {
			if !bad[ContainerName(i)] {
				clean[ContainerName(i)] = true
			}
		}
		last = res
	}
	return slices.DeleteFunc(last, func(d Diff) bool { return clean[containerOf(d)] })
}

// containerOf returns the container name a diff is about ("" for the pod).
func containerOf(d Diff) string {
	name, _, _ := strings.Cut(d.Container, " ")
	return name
}

func count(m map[string]int, ds []Diff) {
	for _, k := range Kinds(ds) {
		m[k]++
	}
}

// String prints the figures of the run and every shrunk finding.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "vpa-fidelity: %d streams in %s: %d agree, %d agree with one of upstream's merge orders, "+
		"%d agree without the samples that decay below epsilon (%s), %d explained by pending defects, %d new\n",
		r.Streams, r.Elapsed.Round(time.Millisecond), r.Agree, r.OrderDependent, r.Revived, SubEpsilonPercentile,
		r.Streams-r.Agree-r.OrderDependent-r.Revived-len(r.New), len(r.New))
	for _, k := range slices.Sorted(maps.Keys(r.Known)) {
		fmt.Fprintf(&b, "  pending defects %s: %d streams\n", k, r.Known[k])
	}
	fmt.Fprintf(&b, "  streams by kind, pending defects: %v\n  streams by kind, new: %v\n  streams with documented deliberate differences: %v\n",
		r.KnownKinds, r.NewKinds, r.Deliberate)
	for _, f := range r.New {
		if f.Shrunk == nil {
			fmt.Fprintf(&b, "new disagreement, seed %d: %v\n", f.Seed, f.Kinds)
			continue
		}
		fmt.Fprintf(&b, "new disagreement, seed %d, %v, shrunk (pending defects' triggers removed before comparing):\n%s", f.Seed, f.Kinds, f.Shrunk)
		for _, d := range f.Diffs {
			fmt.Fprintf(&b, "    %s\n", d)
		}
	}
	return b.String()
}
