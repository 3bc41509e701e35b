package yamlstrict

import (
	"errors"
	"fmt"
	"strconv"

	goyamlv2 "sigs.k8s.io/yaml/goyaml.v2"
)

// parserErrors are the messages of yaml.v3's parser (not its scanner).
// For them yaml.v3 reports the 0-based line of the collection being
// parsed, so the number it prints is one early and not where the problem
// is.
var parserErrors = map[string]bool{
	"did not find expected key":              true,
	"did not find expected '-' indicator":    true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected node content":     true,
	"did not find expected <document start>": true,
}

// syntaxError turns a YAML syntax error into a ParseError on the line
// where the problem is. For parser errors the line comes from yaml.v2,
// whose parser reports the offending token's 0-based line; the collection
// yaml.v3 names is added as context.
func syntaxError(data []byte, err error) error {
	sm := lineRE.FindStringSubmatch(err.Error())
	if sm == nil || !parserErrors[sm[2]] {
		return yamlError(err)
	}
	context, _ := strconv.Atoi(sm[1])
	context++
	line := context
	var v any
	if err2 := goyamlv2.Unmarshal(data, &v); err2 != nil {
		if m2 := lineRE.FindStringSubmatch(err2.Error()); m2 != nil && m2[2] == sm[2] {
			if n, _ := strconv.Atoi(m2[1]); n+1 > line {
				line = n + 1
			}
		}
	}
	msg := sm[2]
	if line != context {
		msg = fmt.Sprintf("%s (in the collection that starts on line %d)", msg, context)
	}
	return errors.Join(&ParseError{Line: line, Msg: msg})
}
