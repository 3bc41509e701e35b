package whatif

import (
	"errors"
	"fmt"
	"slices"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kscale/kscale/internal/scenario"
	"github.com/kscale/kscale/internal/yamlstrict"
)

// Bounds on what a file may ask for: steps (duration/step), a generated
// rate (req/s) and a spike's or step's factor, so the run stays finite.
const (
	maxSteps  = 1 << 21
	maxRate   = 1e9
	maxFactor = 1e3
)

// Parse reads and validates a what-if file. Errors are
// *scenario.ParseError values naming the line and field.
func Parse(data []byte) (*File, error) {
	var f File
	root, err := yamlstrict.DecodeStrict(data, &f)
	if err != nil {
		return nil, err
	}
	v := &checker{root: root}
	v.file(&f)
	if len(v.errs) > 0 {
		return nil, errors.Join(v.errs...)
	}
	return &f, nil
}

// checker collects validation errors with the lines of their fields.
type checker struct {
	root *yaml.Node
	errs []error
}

func (c *checker) failf(bad bool, path []any, format string, args ...any) {
	if bad && len(c.errs) < 50 {
		c.errs = append(c.errs, &scenario.ParseError{Line: yamlstrict.Line(c.root, path...), Msg: fmt.Sprintf(format, args...)})
	}
}

func at(path ...any) []any { return path }

func (c *checker) file(f *File) {
	c.failf(f.APIVersion != scenario.APIVersion, at("apiVersion"), "apiVersion: want %q, got %q", scenario.APIVersion, f.APIVersion)
	c.failf(f.Kind != Kind, at("kind"), "kind: want %q, got %q", Kind, f.Kind)
	c.failf(f.Name == "", at("name"), "name: required")
	c.failf(f.Duration.Duration <= 0, at("duration"), "duration: want a positive duration")
	c.failf(f.Step.Duration < 0 || (f.Step.Duration > 0 && f.Step.Duration < time.Second), at("step"), "step: want at least 1s")
	if f.Duration.Duration > 0 && f.step() > 0 {
		c.failf(f.Duration.Duration/f.step() > maxSteps, at("duration"), "duration: more than %d steps of %s", maxSteps, f.step())
	}
	c.workload(&f.Workload)
	c.trace(f)
	c.failf(len(f.Configurations) == 0, at("configurations"), "configurations: want at least one")
	names := map[string]bool{}
	for i := range f.Configurations {
		cfg := &f.Configurations[i]
		c.failf(names[cfg.Name], at("configurations", i, "name"), "configurations[%d].name: %q repeated", i, cfg.Name)
		names[cfg.Name] = true
		c.configuration(cfg, at("configurations", i))
	}
	for i, e := range f.Expect {
		c.expectation(e, names, at("expect", i))
	}
}

func (c *checker) workload(w *Workload) {
	c.failf(w.Name == "", at("workload", "name"), "workload.name: required")
	c.failf(len(w.Categories) == 0, at("workload", "categories"), "workload.categories: want at least one")
	seen := map[string]bool{}
	for i, cat := range w.Categories {
		p := at("workload", "categories", i)
		c.failf(cat.Name == "" || seen[cat.Name], p, "workload.categories[%d].name: empty or repeated", i)
		c.failf(!cat.CPUPerRequest.Set, p, "workload.categories[%d].cpuPerRequest: required", i)
		seen[cat.Name] = true
	}
	for i, e := range w.Efficiency {
		c.failf(e.Factor <= 0 || e.Factor > 1, at("workload", "efficiency", i, "factor"), "workload.efficiency[%d].factor: want a value in (0, 1]", i)
		c.failf(e.For.Duration <= 0, at("workload", "efficiency", i, "for"), "workload.efficiency[%d].for: want a positive duration", i)
	}
}

func (c *checker) trace(f *File) {
	t := &f.Trace
	c.failf((t.File == "") == (t.Generate == nil), at("trace"), "trace: want exactly one of file and generate")
	if g := t.Generate; g != nil {
		for _, cat := range f.Workload.Categories {
			_, ok := g.Rates[cat.Name]
			c.failf(!ok, at("trace", "generate", "rates"), "trace.generate.rates: no rate for category %q", cat.Name)
		}
		for name, v := range g.Rates {
			c.failf(v < 0 || v > maxRate, at("trace", "generate", "rates", name), "trace.generate.rates.%s: want a rate in [0, %g]", name, float64(maxRate))
		}
		c.failf(g.Noise < 0 || g.Noise > 1, at("trace", "generate", "noise"), "trace.generate.noise: want a value in [0, 1]")
		c.failf(g.WeekendFactor < 0, at("trace", "generate", "weekendFactor"), "trace.generate.weekendFactor: want a non-negative factor")
		if d := g.Diurnal; d != nil {
			c.failf(d.Amplitude < 0 || d.Amplitude > 1, at("trace", "generate", "diurnal", "amplitude"), "trace.generate.diurnal.amplitude: want a value in [0, 1]")
		}
		for i, s := range g.Spikes {
			c.failf(s.Factor < 0 || s.Factor > maxFactor || s.For.Duration <= 0, at("trace", "generate", "spikes", i), "trace.generate.spikes[%d]: want a factor in [0, %g] and a positive for", i, float64(maxFactor))
		}
		for i, s := range g.Steps {
			c.failf(s.Factor < 0 || s.Factor > maxFactor, at("trace", "generate", "steps", i), "trace.generate.steps[%d].factor: want a factor in [0, %g]", i, float64(maxFactor))
		}
	}
}

func (c *checker) configuration(cfg *Configuration, p []any) {
	sub := func(k ...any) []any { return append(slices.Clone(p), k...) }
	c.failf(cfg.Name == "", sub("name"), "configurations: name required")
	c.failf(cfg.Replicas < 1, sub("replicas"), "configurations %q: replicas: want at least 1", cfg.Name)
	cpu, mem := cpuMem(cfg.Requests)
	c.failf(cpu <= 0 || mem <= 0, sub("requests"), "configurations %q: requests: want cpu and memory", cfg.Name)
	c.failf(cfg.HVPA != nil && (cfg.HPA != nil || cfg.VPA != nil), sub("hvpa"), "configurations %q: hvpa replaces hpa and vpa; set it alone", cfg.Name)
	if cfg.HPA != nil {
		c.hpa(cfg.HPA, cfg.Name, sub("hpa"))
	}
	if v := cfg.VPA; v != nil {
		c.failf(!slices.Contains([]string{"", "Auto", "Recreate", "InPlaceOrRecreate", "Initial", "Off"}, v.UpdateMode), sub("vpa", "updateMode"),
			"configurations %q: vpa.updateMode: want Auto, Recreate, InPlaceOrRecreate, Initial or Off, got %q", cfg.Name, v.UpdateMode)
		for _, r := range v.ControlledResources {
			c.failf(r != "cpu" && r != "memory", sub("vpa", "controlledResources"), "configurations %q: vpa.controlledResources: want cpu or memory, got %q", cfg.Name, r)
		}
		c.failf(v.EvictionTolerance != nil && (*v.EvictionTolerance < 0 || *v.EvictionTolerance > 1), sub("vpa", "evictionTolerance"), "configurations %q: vpa.evictionTolerance: want a value in [0, 1]", cfg.Name)
		c.failf(v.CPUHalfLife.Duration < 0, sub("vpa", "cpuHalfLife"), "configurations %q: vpa.cpuHalfLife: want a positive duration", cfg.Name)
	}
	if h := cfg.HVPA; h != nil {
		c.hpa(&h.HPA, cfg.Name, sub("hvpa", "hpa"))
		for i, iv := range h.Intervals {
			c.failf(iv.VPAWeight < 0 || iv.VPAWeight > 100, sub("hvpa", "intervals", i, "vpaWeight"), "configurations %q: hvpa.intervals[%d].vpaWeight: want 0..100", cfg.Name, i)
		}
	}
}

func (c *checker) hpa(h *HPA, name string, p []any) {
	sub := func(k ...any) []any { return append(slices.Clone(p), k...) }
	c.failf(h.Metric != MetricRequestRate && h.Metric != MetricCPU, sub("metric"), "configurations %q: hpa.metric: want %s or %s, got %q", name, MetricRequestRate, MetricCPU, h.Metric)
	c.failf(h.Target <= 0, sub("target"), "configurations %q: hpa.target: want a positive value", name)
	c.failf(h.MinReplicas < 1 || h.MaxReplicas < h.MinReplicas, sub("maxReplicas"), "configurations %q: hpa: want 1 <= minReplicas <= maxReplicas", name)
	c.failf(h.Tolerance != nil && (*h.Tolerance < 0 || *h.Tolerance > 1), sub("tolerance"), "configurations %q: hpa.tolerance: want a value in [0, 1]", name)
	if b := h.Behavior; b != nil {
		for dir, r := range map[string]*Rules{"scaleUp": b.ScaleUp, "scaleDown": b.ScaleDown} {
			if r == nil {
				continue
			}
			c.failf(!slices.Contains([]string{"", "Max", "Min", "Disabled"}, r.SelectPolicy), sub("behavior", dir, "selectPolicy"), "configurations %q: hpa.behavior.%s.selectPolicy: want Max, Min or Disabled", name, dir)
			for i, pol := range r.Policies {
				c.failf((pol.Type != "Pods" && pol.Type != "Percent") || pol.Value <= 0 || pol.Period.Duration <= 0, sub("behavior", dir, "policies", i),
					"configurations %q: hpa.behavior.%s.policies[%d]: want type Pods or Percent, a positive value and period", name, dir, i)
			}
		}
	}
}

func (c *checker) expectation(e Expectation, names map[string]bool, p []any) {
	c.failf(!names[e.Configuration], p, "expect: unknown configuration %q", e.Configuration)
	c.failf(e.LessThan != "" && !names[e.LessThan], p, "expect: lessThan: unknown configuration %q", e.LessThan)
	_, ok := totalsField(Totals{}, e.Metric)
	c.failf(!ok, p, "expect: unknown metric %q (want a field of the totals, e.g. cpuAboveRequestMinutes)", e.Metric)
	c.failf(e.AtMost == nil && e.AtLeast == nil && e.Equals == nil && e.LessThan == "", p, "expect: want atMost, atLeast, equals or lessThan")
}
