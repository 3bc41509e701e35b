package whatif

import (
	"encoding/json"
	"fmt"
	"math"
)

// Check is one evaluated expectation.
type Check struct {
	// Expectation describes it.
	Expectation string `json:"expectation"`
	// OK reports whether it held.
	OK bool `json:"ok"`
	// Got is the value found.
	Got float64 `json:"got"`
}

// totalsField returns a Totals field by its JSON name.
func totalsField(t Totals, name string) (float64, bool) {
	b, err := json.Marshal(t)
	if err != nil {
		return 0, false
	}
	var m map[string]float64
	if json.Unmarshal(b, &m) != nil {
		return 0, false
	}
	v, ok := m[name]
	return v, ok
}

// Checks evaluates the file's expectations on the results.
func Checks(f *File, res []Result) []Check {
	by := map[string]Totals{}
	for _, r := range res {
		by[r.Configuration] = r.Totals
	}
	out := make([]Check, 0, len(f.Expect))
	for _, e := range f.Expect {
		got, _ := totalsField(by[e.Configuration], e.Metric)
		ok := true
		desc := fmt.Sprintf("%s %s", e.Configuration, e.Metric)
		if e.AtMost != nil {
			ok = ok && got <= *e.AtMost
			desc += fmt.Sprintf(" <= %g", *e.AtMost)
		}
		if e.AtLeast != nil {
			ok = ok && got >= *e.AtLeast
			desc += fmt.Sprintf(" >= %g", *e.AtLeast)
		}
		if e.Equals != nil {
			ok = ok && math.Abs(got-*e.Equals) < 1e-9
			desc += fmt.Sprintf(" == %g", *e.Equals)
		}
		if e.LessThan != "" {
			other, _ := totalsField(by[e.LessThan], e.Metric)
			ok = ok && got < other
			desc += fmt.Sprintf(" < %s's (%g)", e.LessThan, other)
		}
		out = append(out, Check{Expectation: desc, OK: ok, Got: got})
	}
	return out
}
