package fidelity

import (
	"path/filepath"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kscale/kscale/internal/simulator"
)

// TestRegressions replays every fixed disagreement kept in
// testdata/regressions: kube-scheduler still gives the recorded verdict on
// the case's pod and node, and the simulator now agrees with it on every
// pair of the case (a "not simulated" answer for a kube-scheduler
// rejection the simulator deliberately does not model).
func TestRegressions(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "regressions", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no regression scenarios (%v)", err)
	}
	o := StartOracle(t, 1)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, err := LoadScenario(f)
			if err != nil {
				t.Fatal(err)
			}
			c, req, sim, err := prepareScenario(s)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := o.Evaluate(req)
			if err != nil {
				t.Fatal(err)
			}
			pod := slices.IndexFunc(c.Pending, func(p *corev1.Pod) bool { return p.Name == s.Pod })
			node := slices.IndexFunc(c.Nodes, func(n *corev1.Node) bool { return n.Name == s.Node })
			if pod < 0 || node < 0 {
				t.Fatalf("scenario names pod %q and node %q, not in its cluster", s.Pod, s.Node)
			}
			if got := resp.Results[pod].Plugins[node]; got != s.KubeScheduler.Filter {
				t.Fatalf("kube-scheduler now says %q (%s), the scenario recorded %q", got, resp.Results[pod].Reasons[node], s.KubeScheduler.Filter)
			}
			ds, err := check(o, c, s.Sequential)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range ds {
				t.Errorf("%s", d.String())
			}
			if fe := sim[pod][node]; fe != nil && fe.Filter == simulator.FilterNotSimulated {
				t.Logf("not simulated: %s", fe.Reason)
			}
		})
	}
}

// prepareScenario returns the scenario's case in evaluation order (a
// sequence's pods as FilterSchedulable decides them), the oracle request
// and the simulator's CheckFit verdicts.
func prepareScenario(s *Scenario) (*Cluster, *Request, [][]*simulator.FitError, error) {
	if s.Sequential {
		seq, err := SimulateSequence(s.Cluster)
		if err != nil {
			return nil, nil, nil, err
		}
		return seq.Cluster, seq.Request(), seq.Sim, nil
	}
	sim, err := s.Cluster.Simulate()
	return s.Cluster, s.Cluster.Request(), sim, err
}
