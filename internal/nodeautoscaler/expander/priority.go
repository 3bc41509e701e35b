package expander

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"

	yaml "go.yaml.in/yaml/v3"
)

// PriorityLabel is the template label the highest-priority expander reads.
const PriorityLabel = "zalando.org/scaling-priority"

// PriorityConfigMapName is the ConfigMap the priority expander reads, in
// the autoscaler's namespace, under the key PriorityConfigMapKey.
const (
	PriorityConfigMapName = "cluster-autoscaler-priority-expander"
	PriorityConfigMapKey  = "priorities"
)

// HighestPriority keeps the options whose template carries the highest
// PriorityLabel; a missing or unparsable label counts as 0.
type HighestPriority struct{}

// BestOptions keeps the highest-priority options.
func (HighestPriority) BestOptions(_ context.Context, opts []Option) []Option {
	return keepMax(opts, func(o Option) float64 { return float64(LabelPriority(o)) })
}

// LabelPriority returns an option's template priority label, 0 when
// missing or not an integer.
func LabelPriority(o Option) int64 {
	if o.Template == nil {
		return 0
	}
	v, err := strconv.ParseInt(o.Template.Labels[PriorityLabel], 10, 64)
	if err != nil {
		return 0
	}
	return v
}

// Priorities maps a priority to regular expressions of node group names,
// as the cluster-autoscaler-priority-expander ConfigMap does.
type Priorities map[int][]*regexp.Regexp

// PrioritySource returns the current priorities (the ConfigMap may change).
type PrioritySource func() (Priorities, error)

// ParsePriorities parses the ConfigMap's "priorities" value, a YAML map of
// integers to lists of regular expressions matched against group names.
func ParsePriorities(data string) (Priorities, error) {
	var raw map[int][]string
	if err := yaml.Unmarshal([]byte(data), &raw); err != nil {
		return nil, fmt.Errorf("parsing priorities: %w", err)
	}
	out := Priorities{}
	for p, exprs := range raw {
		for _, e := range exprs {
			re, err := regexp.Compile(e)
			if err != nil {
				return nil, fmt.Errorf("parsing priorities: priority %d: %w", p, err)
			}
			out[p] = append(out[p], re)
		}
	}
	return out, nil
}

// Priority keeps the options whose group matches the highest priority;
// groups matching no expression are dropped unless nothing matches.
type Priority struct {
	// Source yields the priorities.
	Source PrioritySource
}

// BestOptions keeps the options of the highest matching priority. When the
// source fails or nothing matches, all options are kept.
func (p *Priority) BestOptions(_ context.Context, opts []Option) []Option {
	prios, err := p.Source()
	if err != nil || len(prios) == 0 {
		return opts
	}
	levels := make([]int, 0, len(prios))
	for l := range prios {
		levels = append(levels, l)
	}
	slices.Sort(levels)
	score := func(o Option) float64 {
		for i := len(levels) - 1; i >= 0; i-- {
			for _, re := range prios[levels[i]] {
				if re.MatchString(o.Group) {
					return float64(levels[i])
				}
			}
		}
		return math.Inf(-1)
	}
	best := keepMax(opts, score)
	if len(best) > 0 && math.IsInf(score(best[0]), -1) {
		return opts
	}
	return best
}
