package shadow

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"sigs.k8s.io/yaml"
)

// KindUnneeded is the kind of verdicts on a group's unneeded nodes: kscale's
// count against the scale-down candidates of upstream's status ConfigMap.
const KindUnneeded = "unneeded"

// Reasons of KindUnneeded verdicts.
const (
	// ReasonSameCandidates: both count as many unneeded nodes in the group.
	ReasonSameCandidates = "same_candidates"
	// ReasonOtherCandidates: the counts differ.
	ReasonOtherCandidates = "other_candidates"
)

// upstreamStatus is the part of upstream's cluster-autoscaler-status
// document (key "status") the comparison reads.
type upstreamStatus struct {
	NodeGroups []struct {
		Name      string `json:"name"`
		ScaleDown *struct {
			Candidates int `json:"candidates"`
		} `json:"scaleDown"`
	} `json:"nodeGroups"`
}

// ParseStatus reads the scale-down candidates per group from upstream's
// status document; groups without candidates count 0.
func ParseStatus(doc string) (map[string]int, error) {
	var st upstreamStatus
	if err := yaml.Unmarshal([]byte(doc), &st); err != nil {
		return nil, fmt.Errorf("parsing the running autoscaler's status: %w", err)
	}
	out := make(map[string]int, len(st.NodeGroups))
	for _, g := range st.NodeGroups {
		out[g.Name] = 0
		if g.ScaleDown != nil {
			out[g.Name] = g.ScaleDown.Candidates
		}
	}
	return out, nil
}

// candidatePair is one group's unneeded counts: kscale's and upstream's.
type candidatePair struct{ kscale, upstream int }

// Candidates tracks the unneeded counts per group of both sides and gives
// a verdict whenever a group's pair of counts changes.
type Candidates struct {
	upstream map[string]int
	last     map[string]candidatePair
}

// Upstream takes the candidates of upstream's latest status.
func (c *Candidates) Upstream(perGroup map[string]int) { c.upstream = perGroup }

// Compare takes kscale's unneeded nodes per group at now and returns a
// verdict per group whose counts changed (from none on either side at
// first); nothing before upstream's status was seen.
func (c *Candidates) Compare(now time.Time, kscale map[string]int) []Verdict {
	if c.upstream == nil {
		return nil
	}
	if c.last == nil {
		c.last = map[string]candidatePair{}
	}
	groups := slices.Sorted(maps.Keys(c.upstream))
	for g := range kscale {
		if _, ok := c.upstream[g]; !ok {
			groups = append(groups, g)
		}
	}
	var out []Verdict
	for _, g := range groups {
		p := candidatePair{kscale: kscale[g], upstream: c.upstream[g]}
		// A group starts at no unneeded node on either side.
		if c.last[g] == p {
			continue
		}
		c.last[g] = p
		v := Verdict{Time: now, Kind: KindUnneeded, Subject: g, Agree: p.kscale == p.upstream, Reason: ReasonSameCandidates,
			Kscale: fmt.Sprintf("%d unneeded", p.kscale), Upstream: fmt.Sprintf("%d scale-down candidates", p.upstream)}
		if !v.Agree {
			v.Reason = ReasonOtherCandidates
		}
		out = append(out, v)
	}
	return out
}
