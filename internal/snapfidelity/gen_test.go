package snapfidelity

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

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

// TestGenerateBudgets checks that make test's seeds (1 to 40) generate
// budgets with selectors of every shape the differential is to prove: over
// several workloads, over part of one, over a workload that has a budget
// of its own,
// minAvailable as an int and as a percentage, maxUnavailable, and
// matchLabels and matchExpressions selectors.
func TestGenerateBudgets(t *testing.T) {
	seen := map[string]int{}
	for seed := int64(1); seed <= 40; seed++ {
		c := Generate(seed)
		for _, b := range c.Budgets {
			sel, err := metav1.LabelSelectorAsSelector(&b.Selector)
			if err != nil {
				t.Fatalf("seed %d: budget %s: %v", seed, b.Name, err)
			}
			selected, second := 0, false
			for _, w := range c.Workloads {
				pods, n := len(w.Bound)+w.Pending, 0
				for i := range pods {
					if w.Namespace == b.Namespace && sel.Matches(labels.Set(podLabelsAt(w, i))) {
						n++
					}
				}
				if n > 0 {
					selected++
					second = second || w.MaxUnavailable != nil
				}
				if n > 0 && n < pods {
					seen["over part of a workload"]++
				}
			}
			switch {
			case selected > 1:
				seen["over several workloads"]++
			case selected == 1:
				seen["over one workload"]++
			}
			if second {
				seen["second budget on a workload"]++
			}
			switch {
			case b.MinAvailable != nil && b.MinAvailable.Type == intstr.Int:
				seen["minAvailable int"]++
			case b.MinAvailable != nil:
				seen["minAvailable percent"]++
			default:
				seen["maxUnavailable"]++
			}
			if len(b.Selector.MatchExpressions) > 0 {
				seen["matchExpressions"]++
			} else {
				seen["matchLabels"]++
			}
		}
	}
	for _, want := range []string{"over several workloads", "over one workload", "over part of a workload", "second budget on a workload", "minAvailable int",
		"minAvailable percent", "maxUnavailable", "matchExpressions", "matchLabels"} {
		if seen[want] == 0 {
			t.Errorf("seeds 1 to 40 generate no budget %s; seen %v", want, seen)
		}
	}
	t.Logf("budgets of seeds 1 to 40: %v", seen)
}
