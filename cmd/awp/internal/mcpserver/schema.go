package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool schemas are inferred from the Go types of each tool's input and
// output (field descriptions from `jsonschema` tags), then given the
// ranges, defaults and enums that types cannot say.

// anyJSON is the schema of a json.RawMessage field: any JSON value (the
// inference would otherwise see a byte slice).
var typeSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[json.RawMessage](): {},
}

// schemaOf infers T's schema; a type it cannot describe is a bug here.
func schemaOf[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: typeSchemas})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %T: %v", *new(T), err))
	}
	return s
}

// prop returns the schema of property name (a typo here is a bug).
func prop(s *jsonschema.Schema, name string) *jsonschema.Schema {
	p, ok := s.Properties[name]
	if !ok {
		panic("mcpserver: no property " + name)
	}
	return p
}

// intRange sets an integer property's bounds and default.
func intRange(s *jsonschema.Schema, name string, lo, hi, def int) {
	p := prop(s, name)
	l, h := float64(lo), float64(hi)
	p.Minimum, p.Maximum = &l, &h
	if def != 0 {
		p.Default = json.RawMessage(fmt.Sprint(def))
	}
}

// enum limits a string property to values.
func enum(s *jsonschema.Schema, name string, values ...string) {
	p := prop(s, name)
	for _, v := range values {
		p.Enum = append(p.Enum, v)
	}
}

// tool describes a tool with schemas inferred from In and Out; fix (when
// not nil) adjusts the input schema.
func tool[In, Out any](name, title, desc string, ann mcp.ToolAnnotations, fix func(in *jsonschema.Schema)) *mcp.Tool {
	in := schemaOf[In]()
	if fix != nil {
		fix(in)
	}
	ann.Title = title
	return &mcp.Tool{
		Name: name, Title: title, Description: desc,
		InputSchema: in, OutputSchema: schemaOf[Out](), Annotations: &ann,
	}
}

// Annotations of the tools: readOnly only looks; talks reaches other
// peers (an open world); destructive may change files elsewhere.
var (
	no, yes  = false, true
	readOnly = mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &no, OpenWorldHint: &no}
	marks    = mcp.ToolAnnotations{DestructiveHint: &no, OpenWorldHint: &no}
	talks    = mcp.ToolAnnotations{DestructiveHint: &no, OpenWorldHint: &yes}
	runs     = mcp.ToolAnnotations{DestructiveHint: &yes, OpenWorldHint: &yes}
)
