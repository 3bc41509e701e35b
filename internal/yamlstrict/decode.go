// Package yamlstrict decodes YAML files strictly, for every file kscale
// reads by hand (scenario files, what-if files, the kwok provider's cloud
// config): unknown or repeated fields, wrong types, fractions written into
// integer fields and malformed values are *ParseError values that name the
// line and the field. It also holds the value types such files share
// (durations, resource lists, Kubernetes API values, capacities).
package yamlstrict

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// ParseError is one problem in a strictly decoded file, at a line.
type ParseError struct {
	// Line is the 1-based line number (0 when unknown).
	Line int
	// Msg says what is wrong, naming the field.
	Msg string
}

// Error formats "line N: msg".
func (e *ParseError) Error() string {
	if e.Line <= 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// IsParseError reports whether err is or wraps a ParseError.
func IsParseError(err error) bool {
	var p *ParseError
	return errors.As(err, &p)
}

func lineErr(line int, msg string) error { return &ParseError{Line: line, Msg: msg} }

// MaxFileSize bounds what DecodeStrict accepts, so a hostile file cannot
// make the parser allocate without limit.
const MaxFileSize = 4 << 20

// DecodeStrict decodes one YAML document of at most MaxFileSize bytes into
// v (a pointer to a struct with yaml tags) strictly: unknown or repeated fields, wrong types and fractions written
// into integer fields are *ParseError values with line numbers. It returns
// the document's root map, for Line.
func DecodeStrict(data []byte, v any) (_ *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &ParseError{Msg: fmt.Sprintf("malformed YAML: %v", r)}
		}
	}()
	if len(data) > MaxFileSize {
		return nil, &ParseError{Msg: fmt.Sprintf("file is larger than %d bytes", MaxFileSize)}
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, syntaxError(data, err)
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, &ParseError{Line: 1, Msg: "want a YAML map of fields"}
	}
	if err := WholeNumbers(root.Content[0], reflect.ValueOf(v).Elem().Interface()); err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		return nil, yamlError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, &ParseError{Line: extra.Line, Msg: "only one YAML document per file"}
	}
	return root.Content[0], nil
}

// Line returns the line of the deepest node of root along path (string
// keys and int indices), for validation messages of DecodeStrict's
// callers; for a key it is the key's own line.
func Line(root *yaml.Node, path ...any) int {
	n, line := root, root.Line
	for _, p := range path {
		next, l := child(n, p)
		if next == nil {
			return line
		}
		n, line = next, l
	}
	return line
}

var (
	lineRE      = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	notFoundRE  = regexp.MustCompile(`field (\S+) not found in type \w+\.(\w+)`)
	alreadySetR = regexp.MustCompile(`field (\S+) already set in type \w+\.(\w+)`)
)

// yamlError turns yaml.v3 errors into ParseErrors with line numbers.
func yamlError(err error) error {
	var pe *ParseError
	if errors.As(err, &pe) {
		return pe
	}
	var te *yaml.TypeError
	msgs := []string{err.Error()}
	if errors.As(err, &te) {
		msgs = te.Errors
	}
	var errs []error
	for _, m := range msgs {
		m = strings.TrimPrefix(m, "yaml: ")
		m = notFoundRE.ReplaceAllString(m, "unknown field $1 (in $2)")
		m = alreadySetR.ReplaceAllString(m, "field $1 set twice (in $2)")
		if sm := lineRE.FindStringSubmatch(m); sm != nil {
			n, _ := strconv.Atoi(sm[1])
			errs = append(errs, &ParseError{Line: n, Msg: sm[2]})
			continue
		}
		errs = append(errs, &ParseError{Msg: m})
	}
	return errors.Join(errs...)
}

func child(n *yaml.Node, p any) (*yaml.Node, int) {
	switch k := p.(type) {
	case string:
		if n.Kind != yaml.MappingNode {
			return nil, 0
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				return n.Content[i+1], n.Content[i].Line
			}
		}
	case int:
		if n.Kind == yaml.SequenceNode && k >= 0 && k < len(n.Content) {
			return n.Content[k], n.Content[k].Line
		}
	}
	return nil, 0
}
