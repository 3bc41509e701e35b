package aws

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// walkXML scans an XML document of elements and text (the Query
// protocol's replies: no CDATA, attributes ignored) and calls start for
// every opening element and end for every closing one with the element
// path; end gets the element's unescaped text when it had no children.
// Mismatched or unterminated elements are errors.
func walkXML(data []byte, start func(path [][]byte), end func(path [][]byte, text string) error) error {
	var path [][]byte
	textFrom, leaf := 0, false
	for i := 0; i < len(data); {
		if data[i] != '<' {
			i++
			continue
		}
		switch {
		case bytes.HasPrefix(data[i:], []byte("<?")):
			j := bytes.Index(data[i:], []byte("?>"))
			if j < 0 {
				return errors.New("unterminated processing instruction")
			}
			i += j + 2
		case bytes.HasPrefix(data[i:], []byte("<!--")):
			j := bytes.Index(data[i:], []byte("-->"))
			if j < 0 {
				return errors.New("unterminated comment")
			}
			i += j + 3
		case bytes.HasPrefix(data[i:], []byte("<!")):
			return errors.New("unsupported markup (<! declaration)")
		case i+1 < len(data) && data[i+1] == '/':
			j := bytes.IndexByte(data[i:], '>')
			if j < 0 {
				return errors.New("unterminated end tag")
			}
			name := bytes.TrimSpace(data[i+2 : i+j])
			if len(path) == 0 || !bytes.Equal(path[len(path)-1], name) {
				return fmt.Errorf("unexpected end tag </%s>", name)
			}
			text := ""
			if leaf {
				var err error
				if text, err = unescape(data[textFrom:i]); err != nil {
					return err
				}
			}
			if err := end(path, text); err != nil {
				return err
			}
			path, leaf = path[:len(path)-1], false
			i += j + 1
		default:
			j, err := tagEnd(data, i)
			if err != nil {
				return err
			}
			tag := data[i+1 : j]
			selfClosing := len(tag) > 0 && tag[len(tag)-1] == '/'
			if selfClosing {
				tag = tag[:len(tag)-1]
			}
			name := tag
			if k := bytes.IndexAny(tag, " \t\r\n"); k >= 0 {
				name = tag[:k]
			}
			if len(name) == 0 {
				return errors.New("empty element name")
			}
			path = append(path, name)
			start(path)
			i = j + 1
			if selfClosing {
				if err := end(path, ""); err != nil {
					return err
				}
				path, leaf = path[:len(path)-1], false
				continue
			}
			textFrom, leaf = i, true
		}
	}
	if len(path) > 0 {
		return fmt.Errorf("unterminated element <%s>", path[len(path)-1])
	}
	return nil
}

// tagEnd finds the '>' closing the start tag at i, skipping quoted
// attribute values.
func tagEnd(data []byte, i int) (int, error) {
	var quote byte
	for j := i + 1; j < len(data); j++ {
		switch c := data[j]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return j, nil
		case c == '<':
			return 0, errors.New("'<' inside a start tag")
		}
	}
	return 0, errors.New("unterminated start tag")
}

// unescape resolves the predefined and numeric character references.
func unescape(b []byte) (string, error) {
	if bytes.IndexByte(b, '&') < 0 {
		return string(b), nil
	}
	var sb strings.Builder
	for len(b) > 0 {
		k := bytes.IndexByte(b, '&')
		if k < 0 {
			sb.Write(b)
			break
		}
		sb.Write(b[:k])
		b = b[k:]
		semi := bytes.IndexByte(b, ';')
		if semi < 0 {
			return "", errors.New("unterminated character reference")
		}
		ref := string(b[1:semi])
		switch ref {
		case "amp":
			sb.WriteByte('&')
		case "lt":
			sb.WriteByte('<')
		case "gt":
			sb.WriteByte('>')
		case "quot":
			sb.WriteByte('"')
		case "apos":
			sb.WriteByte('\'')
		default:
			r, err := charRef(ref)
			if err != nil {
				return "", err
			}
			sb.WriteRune(r)
		}
		b = b[semi+1:]
	}
	return sb.String(), nil
}

func charRef(ref string) (rune, error) {
	var n uint64
	var err error
	switch {
	case strings.HasPrefix(ref, "#x"):
		n, err = strconv.ParseUint(ref[2:], 16, 32)
	case strings.HasPrefix(ref, "#"):
		n, err = strconv.ParseUint(ref[1:], 10, 32)
	default:
		return 0, fmt.Errorf("unknown entity &%s;", ref)
	}
	if err != nil || n > 0x10FFFF {
		return 0, fmt.Errorf("bad character reference &%s;", ref)
	}
	return rune(n), nil
}
