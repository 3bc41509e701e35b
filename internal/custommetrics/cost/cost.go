package cost

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxFileSize bounds a cost file, so a wrong path cannot make the parser
// read without limit.
const MaxFileSize = 1 << 20

// Scopes are the values of apiserver_request_total's scope label a rule may name.
var Scopes = []string{"resource", "namespace", "cluster"}

// Rule gives a cost to the requests it matches; an empty field matches any value.
type Rule struct {
	// Verb matches the verb label, case-insensitively.
	Verb string
	// Scope matches the scope label.
	Scope string
	// Resource matches the resource label.
	Resource string
	// Cost is the cost of one matching request.
	Cost float64
}

// Table is a parsed cost file.
type Table struct {
	// DefaultCost is the cost of a request no rule matches.
	DefaultCost float64
	// Rules are tried in order; the first match wins.
	Rules []Rule
}

// Error is a problem in a cost file at a line (0 when unknown).
type Error struct {
	// Line is the 1-based line of the offending node.
	Line int
	// Field is the path of the offending field, e.g. rules[2].cost.
	Field string
	// Msg says what is wrong.
	Msg string
}

// Error returns "line N: field: msg".
func (e *Error) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Load reads and parses the cost file at path.
func Load(path string) (*Table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading cost file: %w", err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("cost file %s: %w", path, err)
	}
	return t, nil
}

// Parse parses a cost file's content; every error is an *Error.
func Parse(data []byte) (*Table, error) {
	if len(data) > MaxFileSize {
		return nil, &Error{Msg: fmt.Sprintf("larger than %d bytes", MaxFileSize)}
	}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); errors.Is(err, io.EOF) {
		return nil, &Error{Msg: "empty file: want a map with defaultCost and rules"}
	} else if err != nil {
		return nil, syntaxError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &Error{Line: extra.Line, Msg: "only one document per file"}
	}
	if len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return nil, &Error{Line: root.Line, Msg: "want a map with defaultCost and rules"}
	}
	return parseTable(root.Content[0])
}

// syntaxError turns a YAML syntax error into an *Error with its line.
func syntaxError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var line int
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, tail, ok := strings.Cut(rest, ": "); ok {
			if v, err := strconv.Atoi(n); err == nil {
				line, msg = v, tail
			}
		}
	}
	return &Error{Line: line, Msg: "malformed YAML: " + msg}
}

func parseTable(n *yaml.Node) (*Table, error) {
	t := &Table{}
	fields, err := mapping(n, "", []string{"defaultCost", "rules"})
	if err != nil {
		return nil, err
	}
	d, ok := fields["defaultCost"]
	if !ok {
		return nil, &Error{Line: n.Line, Field: "defaultCost", Msg: "required"}
	}
	if t.DefaultCost, err = costValue(d, "defaultCost"); err != nil {
		return nil, err
	}
	rules, ok := fields["rules"]
	if !ok || isNull(rules) {
		return t, nil
	}
	if rules.Kind != yaml.SequenceNode {
		return nil, &Error{Line: rules.Line, Field: "rules", Msg: "want a list of rules"}
	}
	for i, rn := range rules.Content {
		r, err := parseRule(rn, fmt.Sprintf("rules[%d]", i))
		if err != nil {
			return nil, err
		}
		t.Rules = append(t.Rules, r)
	}
	return t, nil
}

func parseRule(n *yaml.Node, path string) (Rule, error) {
	fields, err := mapping(n, path, []string{"verb", "scope", "resource", "cost"})
	if err != nil {
		return Rule{}, err
	}
	var r Rule
	c, ok := fields["cost"]
	if !ok {
		return Rule{}, &Error{Line: n.Line, Field: path + ".cost", Msg: "required"}
	}
	if r.Cost, err = costValue(c, path+".cost"); err != nil {
		return Rule{}, err
	}
	for key, dst := range map[string]*string{"verb": &r.Verb, "scope": &r.Scope, "resource": &r.Resource} {
		v, ok := fields[key]
		if !ok {
			continue
		}
		if *dst, err = label(v, path+"."+key); err != nil {
			return Rule{}, err
		}
	}
	r.Verb = strings.ToUpper(r.Verb)
	if r.Scope != "" && !contains(Scopes, r.Scope) {
		return Rule{}, &Error{Line: fields["scope"].Line, Field: path + ".scope", Msg: fmt.Sprintf("%q is not one of %s", r.Scope, strings.Join(Scopes, ", "))}
	}
	return r, nil
}

// mapping checks that n is a map with only the allowed keys, each once.
func mapping(n *yaml.Node, path string, allowed []string) (map[string]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, &Error{Line: n.Line, Field: path, Msg: "want a map of " + strings.Join(allowed, ", ")}
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		field := k.Value
		if path != "" {
			field = path + "." + k.Value
		}
		if k.Kind != yaml.ScalarNode || !contains(allowed, k.Value) {
			return nil, &Error{Line: k.Line, Field: field, Msg: "unknown field (want " + strings.Join(allowed, ", ") + ")"}
		}
		if _, dup := out[k.Value]; dup {
			return nil, &Error{Line: k.Line, Field: field, Msg: "set twice"}
		}
		out[k.Value] = v
	}
	return out, nil
}

func costValue(n *yaml.Node, field string) (float64, error) {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
		return 0, &Error{Line: n.Line, Field: field, Msg: fmt.Sprintf("want a number, got %q", n.Value)}
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, &Error{Line: n.Line, Field: field, Msg: fmt.Sprintf("want a finite number >= 0, got %q", n.Value)}
	}
	return v, nil
}

func label(n *yaml.Node, field string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" || n.Value == "" || strings.ContainsAny(n.Value, " \t\n\"\\") {
		return "", &Error{Line: n.Line, Field: field, Msg: fmt.Sprintf("want a non-empty label value without spaces, quotes or backslashes, got %q", n.Value)}
	}
	return n.Value, nil
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Validate reports the first invalid field of a Table built in code.
func (t *Table) Validate() error {
	if !validCost(t.DefaultCost) {
		return errors.New("defaultCost: want a finite number >= 0")
	}
	for i, r := range t.Rules {
		if !validCost(r.Cost) {
			return fmt.Errorf("rules[%d].cost: want a finite number >= 0", i)
		}
		if r.Scope != "" && !contains(Scopes, r.Scope) {
			return fmt.Errorf("rules[%d].scope: %q is not one of %s", i, r.Scope, strings.Join(Scopes, ", "))
		}
	}
	return nil
}

func validCost(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 }

// Cost returns the cost of a request with the given label values: the cost
// of the first matching rule, else DefaultCost. It takes the values as bytes
// and does not allocate, since the scraper calls it for every series.
func (t *Table) Cost(verb, scope, resource []byte) float64 {
	for i := range t.Rules {
		r := &t.Rules[i]
		if (r.Verb == "" || bytes.EqualFold(verb, []byte(r.Verb))) &&
			(r.Scope == "" || string(scope) == r.Scope) &&
			(r.Resource == "" || string(resource) == r.Resource) {
			return r.Cost
		}
	}
	return t.DefaultCost
}
