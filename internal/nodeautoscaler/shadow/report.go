package shadow

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"sort"
	"time"
)

// ParseRecord reads a record file: one Verdict per JSON line, as the
// Watcher writes it. Blank lines are skipped; an error names the line.
func ParseRecord(r io.Reader) ([]Verdict, error) {
	var out []Verdict
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var v Verdict
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if v.Kind != KindScaleUp && v.Kind != KindScaleDown && v.Kind != KindUnneeded {
			return nil, fmt.Errorf("line %d: kind: want %s, %s or %s, got %q", line, KindScaleUp, KindScaleDown, KindUnneeded, v.Kind)
		}
		if v.Time.IsZero() {
			return nil, fmt.Errorf("line %d: time: missing", line)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the record: %w", err)
	}
	return out, nil
}

// ReasonCount is how many verdicts of a kind had a reason.
type ReasonCount struct {
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
	Agree  bool   `json:"agree"`
	Count  int    `json:"count"`
}

// Report is the comparison over a time range.
type Report struct {
	// From and To bound the range (zero: open).
	From time.Time `json:"from,omitzero"`
	To   time.Time `json:"to,omitzero"`
	// Total and Agreed count the verdicts in the range.
	Total  int `json:"total"`
	Agreed int `json:"agreed"`
	// Reasons count the verdicts by kind and reason, most frequent first.
	Reasons []ReasonCount `json:"reasons"`
	// Disagreements are the verdicts that disagree, in time order.
	Disagreements []Verdict `json:"disagreements"`
}

// Summarize builds the report of the verdicts in [from, to) (a zero bound
// is open).
func Summarize(verdicts []Verdict, from, to time.Time) Report {
	r := Report{From: from, To: to, Disagreements: []Verdict{}, Reasons: []ReasonCount{}}
	counts := map[ReasonCount]int{}
	for _, v := range verdicts {
		if (!from.IsZero() && v.Time.Before(from)) || (!to.IsZero() && !v.Time.Before(to)) {
			continue
		}
		r.Total++
		counts[ReasonCount{Kind: v.Kind, Reason: v.Reason, Agree: v.Agree}]++
		if v.Agree {
			r.Agreed++
		} else {
			r.Disagreements = append(r.Disagreements, v)
		}
	}
	for k, n := range counts {
		k.Count = n
		r.Reasons = append(r.Reasons, k)
	}
	sort.Slice(r.Reasons, func(i, j int) bool {
		a, b := r.Reasons[i], r.Reasons[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Kind+a.Reason < b.Kind+b.Reason
	})
	sort.SliceStable(r.Disagreements, func(i, j int) bool { return r.Disagreements[i].Time.Before(r.Disagreements[j].Time) })
	return r
}

// AgreementPercent is the share of verdicts that agree, 0 without any.
func (r Report) AgreementPercent() float64 {
	if r.Total == 0 {
		return 0
	}
	return 100 * float64(r.Agreed) / float64(r.Total)
}

// WriteText renders the report as plain text.
func (r Report) WriteText(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Shadow comparison: %d decisions, %d agree (%.1f%%)\n", r.Total, r.Agreed, r.AgreementPercent())
	fmt.Fprintf(&b, "\n%-10s  %-9s  %-22s  %s\n", "KIND", "VERDICT", "REASON", "COUNT")
	for _, c := range r.Reasons {
		fmt.Fprintf(&b, "%-10s  %-9s  %-22s  %d\n", c.Kind, verdictWord(c.Agree), c.Reason, c.Count)
	}
	if len(r.Disagreements) > 0 {
		fmt.Fprintf(&b, "\nDisagreements:\n")
		for _, v := range r.Disagreements {
			fmt.Fprintf(&b, "%s  %-10s  %s  %s\n    kscale: %s\n    upstream: %s\n",
				v.Time.UTC().Format(time.RFC3339), v.Kind, v.Subject, v.Reason, v.Kscale, v.Upstream)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteJSON renders the report as indented JSON.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func verdictWord(agree bool) string {
	if agree {
		return "agree"
	}
	return "disagree"
}

var htmlPage = template.Must(template.New("shadow").Funcs(template.FuncMap{"verdict": verdictWord,
	"ts": func(t time.Time) string { return t.UTC().Format(time.RFC3339) }}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>kscale shadow comparison</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}.disagree{color:#a00}</style>
</head><body>
<h1>Shadow comparison</h1>
<p>{{.Total}} decisions, {{.Agreed}} agree ({{printf "%.1f" .AgreementPercent}}%).</p>
<h2>By reason</h2>
<table><tr><th>Kind</th><th>Verdict</th><th>Reason</th><th>Count</th></tr>
{{range .Reasons}}<tr class="{{verdict .Agree}}"><td>{{.Kind}}</td><td>{{verdict .Agree}}</td><td>{{.Reason}}</td><td>{{.Count}}</td></tr>
{{end}}</table>
<h2>Disagreements</h2>
<table><tr><th>Time</th><th>Kind</th><th>Subject</th><th>Reason</th><th>kscale</th><th>Upstream</th></tr>
{{range .Disagreements}}<tr><td>{{ts .Time}}</td><td>{{.Kind}}</td><td>{{.Subject}}</td><td>{{.Reason}}</td><td>{{.Kscale}}</td><td>{{.Upstream}}</td></tr>
{{end}}</table>
</body></html>
`))

// WriteHTML renders the report as a self-contained HTML page.
func (r Report) WriteHTML(w io.Writer) error {
	return htmlPage.Execute(w, r)
}
