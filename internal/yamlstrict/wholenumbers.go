package yamlstrict

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

var unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()

// WholeNumbers checks that every YAML value decoded into an integer field
// of v's type is written as an integer: yaml.v3 would truncate 4.5 to 4.
// Types with their own UnmarshalYAML check their values themselves.
func WholeNumbers(n *yaml.Node, v any) error {
	var errs []error
	wholeNumbers(n, reflect.TypeOf(v), &errs, 0)
	return errors.Join(errs...)
}

func wholeNumbers(n *yaml.Node, t reflect.Type, errs *[]error, depth int) {
	if n == nil || depth > 64 || len(*errs) >= 20 {
		return
	}
	if n.Kind == yaml.AliasNode {
		wholeNumbers(n.Alias, t, errs, depth+1)
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if f, ok := fieldByTag(t, n.Content[i].Value); ok {
				wholeNumbers(n.Content[i+1], f.Type, errs, depth+1)
			}
		}
	case reflect.Slice, reflect.Array:
		if n.Kind == yaml.SequenceNode {
			for _, c := range n.Content {
				wholeNumbers(c, t.Elem(), errs, depth+1)
			}
		}
	case reflect.Map:
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				wholeNumbers(n.Content[i], t.Key(), errs, depth+1)
				wholeNumbers(n.Content[i+1], t.Elem(), errs, depth+1)
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!float" {
			*errs = append(*errs, &ParseError{Line: n.Line, Msg: fmt.Sprintf("want a whole number, got %s", n.Value)})
		}
	}
}

// fieldByTag finds the struct field with the yaml name.
func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if tag == name && tag != "-" {
			return f, true
		}
	}
	return reflect.StructField{}, false
}
