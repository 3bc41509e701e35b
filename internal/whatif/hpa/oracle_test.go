package hpa

import (
	"bufio"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var (
	oracleCases = flag.Int("hpa.cases", 2000, "random inputs compared with kube-controller-manager's replica calculator")
	oracleSeed  = flag.Uint64("hpa.seed", 1, "seed of the random inputs")
)

type oracleRequest struct {
	Current       int32       `json:"current"`
	TargetMilli   int64       `json:"targetMilli"`
	ToleranceUp   float64     `json:"toleranceUp"`
	ToleranceDown float64     `json:"toleranceDown"`
	Pods          []oraclePod `json:"pods"`
}

type oraclePod struct {
	Phase       string `json:"phase"`
	Deleting    bool   `json:"deleting,omitempty"`
	MetricMilli *int64 `json:"metricMilli,omitempty"`
}

type oracleResponse struct {
	Replicas   int32  `json:"replicas"`
	UsageMilli int64  `json:"usageMilli"`
	Error      string `json:"error"`
}

// buildOracle builds (or finds in its cache) hack/hpaoracle.
func buildOracle(t *testing.T) string {
	t.Helper()
	script, err := filepath.Abs("../../../hack/hpaoracle/build.sh")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(script).Output()
	if err != nil {
		t.Fatalf("building the HPA oracle failed (run hack/hpaoracle/build.sh, which needs Go and the module proxy): %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

// randomCase draws an HPA situation: replica counts, targets, tolerances
// and pods that are running, pending, deleted or failed, with or without a
// metric, with values near and far from the target.
func randomCase(rng *rand.Rand) (oracleRequest, []Pod) {
	req := oracleRequest{
		Current:     int32(rng.IntN(20) + 1),
		TargetMilli: int64(rng.IntN(5000)+1) * []int64{1, 10, 1000}[rng.IntN(3)],
	}
	tols := []float64{0, 0.05, 0.1, 0.2, 0.5}
	req.ToleranceUp, req.ToleranceDown = tols[rng.IntN(len(tols))], tols[rng.IntN(len(tols))]
	n := rng.IntN(12)
	pods := make([]Pod, n)
	for i := range n {
		p := oraclePod{Phase: "Running"}
		switch rng.IntN(10) {
		case 0:
			p.Phase = "Pending"
		case 1:
			p.Phase = "Failed"
		case 2:
			p.Deleting = true
		}
		if rng.IntN(6) != 0 {
			var v int64
			switch rng.IntN(3) {
			case 0:
				v = req.TargetMilli + int64(rng.IntN(21)-10)*req.TargetMilli/100
			case 1:
				v = int64(rng.IntN(10 * int(req.TargetMilli)))
			default:
				v = int64(rng.IntN(3)) * req.TargetMilli
			}
			p.MetricMilli = &v
		}
		req.Pods = append(req.Pods, p)
		pods[i] = Pod{Pending: p.Phase == "Pending", Ignored: p.Phase == "Failed" || p.Deleting, HasMetric: p.MetricMilli != nil}
		if p.MetricMilli != nil {
			pods[i].MetricMilli = *p.MetricMilli
		}
	}
	return req, pods
}

// TestOracle compares PodsMetricReplicas with upstream's
// ReplicaCalculator.GetMetricReplicas (hack/hpaoracle) on random inputs;
// `make hpa-oracle` runs 10^5 of them.
func TestOracle(t *testing.T) {
	cmd := exec.Command(buildOracle(t))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Wait() })
	rng := rand.New(rand.NewPCG(*oracleSeed, 2))
	in := bufio.NewWriter(stdin)
	dec := json.NewDecoder(bufio.NewReader(stdout))
	enc := json.NewEncoder(in)
	disagree := 0
	for i := range *oracleCases {
		req, pods := randomCase(rng)
		if err := enc.Encode(req); err != nil {
			t.Fatal(err)
		}
		if err := in.Flush(); err != nil {
			t.Fatal(err)
		}
		var want oracleResponse
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("case %d: reading the oracle: %v", i, err)
		}
		got, usage, err := PodsMetricReplicas(req.Current, req.TargetMilli, Tolerances{Up: req.ToleranceUp, Down: req.ToleranceDown}, pods)
		if (err != nil) != (want.Error != "") || (err == nil && (got != want.Replicas || usage != want.UsageMilli)) {
			disagree++
			if disagree <= 10 {
				b, _ := json.Marshal(req)
				t.Errorf("case %d %s: got %d (usage %d, err %v), upstream %d (usage %d, err %q)", i, b, got, usage, err, want.Replicas, want.UsageMilli, want.Error)
			}
		}
	}
	t.Logf("%d random cases, %d disagreements with kube-controller-manager's replica calculator", *oracleCases, disagree)
}
