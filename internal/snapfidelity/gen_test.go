package snapfidelity

import (
	"testing"

	"github.com/kscale/kscale/internal/scenario"
)

// TestGenerateCovers checks that the seeds make test runs (1 to 40)
// generate every kind of object the differential is to prove.
func TestGenerateCovers(t *testing.T) {
	seen := map[string]int{}
	for seed := int64(1); seed <= 40; seed++ {
		c := Generate(seed)
		for k, v := range c.Settings {
			seen["flag "+k+"="+v]++
		}
		for _, w := range c.Workloads {
			seen["kind "+w.Kind]++
			if w.Volume != "" {
				seen["volume "+w.Volume]++
			}
			if w.SafeVolume {
				seen["safe volume"]++
			}
			if w.NotReady > 0 {
				seen["not ready"]++
			}
			if w.Finished > 0 {
				seen["finished "+w.Kind]++
			}
			switch {
			case w.Surplus > 0:
				seen["short of pods "+w.Owner]++
			case w.Surplus < 0:
				seen["scaled down"]++
			}
			if w.MaxUnavailable != nil {
				seen["pdb"]++
			}
		}
	}
	for _, want := range []string{"kind " + KindReplicaSet, "kind " + KindPods, "kind " + KindJob, "kind " + KindDaemonSet,
		"volume " + scenario.VolumeEmptyDir, "volume " + scenario.VolumeHostPath, "safe volume", "not ready", "finished " + KindJob,
		"short of pods " + OwnerStatefulSet, "short of pods " + OwnerRC, "scaled down", "pdb",
		"flag skip-nodes-with-local-storage=false", "flag skip-nodes-with-job-pods=false"} {
		if seen[want] == 0 {
			t.Errorf("seeds 1 to 40 generate no %s; seen %v", want, seen)
		}
	}
}
