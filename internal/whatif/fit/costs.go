package fit

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// scopes are the scope label values the cost file accepts.
var scopes = []string{"resource", "namespace", "cluster"}

// rule is one cost file rule; empty fields match anything.
type rule struct {
	verb, scope, resource string
	cost                  float64
}

// categoryRule reads a category named VERB/scope/resource (the default
// labels of a Prometheus export; fewer parts, or empty ones, match any
// value).
func categoryRule(name string, cost float64) (rule, error) {
	parts := strings.Split(name, "/")
	if len(parts) > 3 {
		return rule{}, fmt.Errorf("category %q: want VERB/scope/resource", name)
	}
	parts = append(parts, "", "")
	r := rule{verb: parts[0], scope: parts[1], resource: parts[2], cost: cost}
	if r.scope != "" && !slices.Contains(scopes, r.scope) {
		return rule{}, fmt.Errorf("category %q: scope %q is not one of %s", name, r.scope, strings.Join(scopes, ", "))
	}
	return r, nil
}

// WriteCosts writes the fit as a cost file for the custom metrics
// provider's cost-weighted request rate (the format of package
// internal/custommetrics/cost: defaultCost and rules of verb, scope,
// resource and cost, first match wins). Costs are CPU-seconds per request,
// so the weighted rate is in cores; more specific categories come first,
// and the default is the rate-weighted mean cost of the fitted categories
// (meanRates: each category's mean rate).
func WriteCosts(w io.Writer, r *Result, meanRates []float64, source string) error {
	var rules []rule
	var num, den float64
	for i, name := range r.Categories {
		ru, err := categoryRule(name, r.Costs[i])
		if err != nil {
			return err
		}
		rules = append(rules, ru)
		num += r.Costs[i] * meanRates[i]
		den += meanRates[i]
	}
	slices.SortStableFunc(rules, func(a, b rule) int { return wildcards(a) - wildcards(b) })
	def := 0.0
	if den > 0 {
		def = num / den
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# CPU-seconds per request, fitted by kscale fit-costs from %s:\n", source)
	fmt.Fprintf(&b, "# %d samples, RMSE %.4g cores (%.1f%% of the mean), R² %.4f, base CPU per replica %.4g cores.\n",
		r.Samples, r.RMSE, 100*r.RelativeError, r.R2, r.BaseCPU)
	fmt.Fprintf(&b, "defaultCost: %s\nrules:\n", num64(def))
	for _, ru := range rules {
		b.WriteString("  -")
		for _, kv := range [][2]string{{"verb", ru.verb}, {"scope", ru.scope}, {"resource", ru.resource}} {
			if kv[1] != "" {
				fmt.Fprintf(&b, " %s: %s\n   ", kv[0], strconv.Quote(kv[1]))
			}
		}
		fmt.Fprintf(&b, " cost: %s\n", num64(ru.cost))
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("writing the cost file: %w", err)
	}
	return nil
}

func wildcards(r rule) int {
	n := 0
	for _, s := range []string{r.verb, r.scope, r.resource} {
		if s == "" {
			n++
		}
	}
	return n
}

func num64(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
