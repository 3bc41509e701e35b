package parse

import (
	"bytes"
	"errors"
	"fmt"
)

// request holds the label values a request's cost depends on.
type request struct {
	verb, scope, resource []byte
}

// requestLabels finds the verb, scope and resource values in a label set
// given without its braces. Values are returned unescaped; only a value with
// an escape sequence is copied.
func requestLabels(set []byte) (request, error) {
	var r request
	for {
		set = trimLabelSep(set)
		if len(set) == 0 {
			return r, nil
		}
		eq := bytes.IndexByte(set, '=')
		if eq <= 0 {
			return request{}, fmt.Errorf("label %q without a value", truncate(set))
		}
		name := bytes.TrimRight(set[:eq], " \t")
		rest := trimLeft(set[eq+1:])
		if len(rest) == 0 || rest[0] != '"' {
			return request{}, fmt.Errorf("value of label %q is not quoted", truncate(name))
		}
		value, end, escaped := quoted(rest)
		if end < 0 {
			return request{}, errors.New("unterminated label value")
		}
		if escaped {
			value = unescape(value)
		}
		switch string(name) {
		case "verb":
			r.verb = value
		case "scope":
			r.scope = value
		case "resource":
			r.resource = value
		}
		set = rest[end+1:]
	}
}

// quoted returns the raw content of the quoted string at b[0], the index of
// its closing quote (-1 when missing) and whether it holds escapes.
func quoted(b []byte) (raw []byte, end int, escaped bool) {
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			escaped = true
			i++
		case '"':
			return b[1:i], i, escaped
		}
	}
	return nil, -1, escaped
}

// unescape resolves the text format's label value escapes: \\, \" and \n.
func unescape(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '\\' && i+1 < len(b) {
			i++
			c = b[i]
			if c == 'n' {
				c = '\n'
			}
		}
		out = append(out, c)
	}
	return out
}

func trimLabelSep(b []byte) []byte {
	for len(b) > 0 && (isSpace(b[0]) || b[0] == ',') {
		b = b[1:]
	}
	return b
}
