package fidelity

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var (
	flagPairs   = flag.Int64("fidelity.pairs", 50_000, "compare at least this many pod-node pairs")
	flagSeed    = flag.Int64("fidelity.seed", 1, "first seed (seeds are consecutive)")
	flagRandom  = flag.Bool("fidelity.random", false, "start from a random seed (printed) instead of -fidelity.seed")
	flagWorkers = flag.Int("fidelity.workers", 1, "oracle worker goroutines")
	flagShow    = flag.Int("fidelity.show", 5, "disagreements to shrink and print, one per kind")
	flagSave    = flag.String("fidelity.save", "", "directory to write the shrunk scenarios into")
)

// TestFidelity compares the simulator with kube-scheduler's filters on
// generated clusters: a fixed seed set by default (what `make test` runs),
// random seeds with -fidelity.random (what `make fidelity` runs).
func TestFidelity(t *testing.T) {
	o := StartOracle(t, *flagWorkers)
	first := *flagSeed
	if *flagRandom {
		first = time.Now().UnixNano() % 1_000_000_000_000
	}
	start := time.Now()
	tally, ds, err := Run(o, RunConfig{FirstSeed: first, MinPairs: *flagPairs})
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	fmt.Printf("fidelity: seeds %d..%d, %s, %.0f pairs/s\n%s", first, first+tally.Clusters-1,
		elapsed.Round(time.Millisecond), float64(tally.Pairs)/elapsed.Seconds(), tally.Report())
	if len(ds) == 0 {
		return
	}
	kinds := map[[2]string]int{}
	for _, d := range ds {
		kinds[[2]string{orFits(d.Oracle.Filter), simulatorKind(d.Simulator)}]++
	}
	for k, n := range kinds {
		fmt.Printf("disagreements: kube-scheduler %s, simulator %s: %d\n", k[0], k[1], n)
	}
	shown := map[[2]string]bool{}
	for _, d := range ds {
		kind := [2]string{d.Oracle.Filter, simulatorKind(d.Simulator)}
		if shown[kind] || len(shown) >= *flagShow {
			continue
		}
		shown[kind] = true
		s := NewScenario(Shrink(o, d))
		t.Errorf("seed %d: %s\nminimal scenario:\n%s", d.Cluster.Seed, d.String(), s.YAML())
		if *flagSave != "" {
			name := fmt.Sprintf("seed-%d-%s-%s.yaml", d.Cluster.Seed, s.Pod, s.Node)
			if err := os.WriteFile(filepath.Join(*flagSave, name), []byte(s.YAML()), 0o644); err != nil {
				t.Error(err)
			}
		}
	}
	t.Errorf("%d disagreements in %d pairs (%d kinds shown above)", len(ds), tally.Pairs, len(shown))
}
