package fidelity

import (
	"encoding/json"
	"fmt"
	"os"

	"sigs.k8s.io/yaml"
)

// Scenario is a shrunk disagreement as a file: the cluster, the pod and
// node, and both verdicts. Fixed ones are kept in testdata/regressions,
// where the simulator must give the oracle's verdict.
type Scenario struct {
	// Name says what the case is about.
	Name string `json:"name"`
	// Pod and Node name the pair (the pod is the cluster's only pending pod).
	Pod  string `json:"pod"`
	Node string `json:"node"`
	// KubeScheduler is the oracle's verdict (the filter, or "" for fits).
	KubeScheduler ScenarioVerdict `json:"kubeScheduler"`
	// Simulator is the simulator's verdict when the case was found.
	Simulator ScenarioVerdict `json:"simulator"`
	// Sequential is true for a placement case: the pending pods are
	// scheduled in order (FilterSchedulable's), each with the earlier
	// placements bound; otherwise the only pending pod is checked alone.
	Sequential bool `json:"sequential,omitempty"`
	// Cluster is the case.
	Cluster *Cluster `json:"cluster"`
}

// ScenarioVerdict is a verdict in a scenario file.
type ScenarioVerdict struct {
	// Filter is the rejecting plugin, "" when the pod fits.
	Filter string `json:"filter"`
	// Reason is the rejection's message.
	Reason string `json:"reason,omitempty"`
}

// NewScenario describes a (shrunk) disagreement.
func NewScenario(d Disagreement) *Scenario {
	return &Scenario{
		Name: fmt.Sprintf("kube-scheduler %s, simulator %s", orFits(d.Oracle.Filter), simulatorKind(d.Simulator)),
		Pod:  d.Cluster.Pending[d.Pod].Name, Node: d.Cluster.Nodes[d.Node].Name,
		KubeScheduler: ScenarioVerdict{Filter: d.Oracle.Filter, Reason: d.Oracle.Reason},
		Simulator:     ScenarioVerdict{Filter: d.Simulator.Filter, Reason: d.Simulator.Reason},
		Sequential:    d.Sequence != nil,
		Cluster:       d.Cluster,
	}
}

// simulatorKind names the simulator's verdict: a filter, "fits", or
// FilterSchedulable's placement.
func simulatorKind(v Verdict) string {
	if v.Reason == PlacedHere {
		return PlacedHere
	}
	return orFits(v.Filter)
}

func orFits(f string) string {
	if f == "" {
		return "fits"
	}
	return f
}

// YAML renders the scenario, without the all-zero node status structs
// (daemon endpoints, node info) that the API types always serialise.
func (s *Scenario) YAML() string {
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Sprintf("rendering scenario: %v", err)
	}
	var tree map[string]any
	if err := json.Unmarshal(data, &tree); err != nil {
		return fmt.Sprintf("rendering scenario: %v", err)
	}
	if c, ok := tree["cluster"].(map[string]any); ok {
		nodes, _ := c["nodes"].([]any)
		for _, n := range nodes {
			status, _ := n.(map[string]any)["status"].(map[string]any)
			for _, k := range []string{"daemonEndpoints", "nodeInfo"} {
				if allZero(status[k]) {
					delete(status, k)
				}
			}
		}
	}
	out, err := yaml.Marshal(tree)
	if err != nil {
		return fmt.Sprintf("rendering scenario: %v", err)
	}
	return string(out)
}

// allZero reports whether a decoded JSON value holds only zero leaves.
func allZero(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case map[string]any:
		for _, x := range v {
			if !allZero(x) {
				return false
			}
		}
		return true
	case string:
		return v == ""
	case float64:
		return v == 0
	case bool:
		return !v
	default:
		return false
	}
}

// LoadScenario reads a scenario file.
func LoadScenario(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading scenario: %w", err)
	}
	s := &Scenario{}
	if err := yaml.UnmarshalStrict(data, s); err != nil {
		return nil, fmt.Errorf("parsing scenario %s: %w", path, err)
	}
	if s.Cluster == nil || len(s.Cluster.Pending) == 0 || !s.Sequential && len(s.Cluster.Pending) != 1 {
		return nil, fmt.Errorf("scenario %s: want a cluster with one pending pod (several when sequential)", path)
	}
	return s, nil
}
