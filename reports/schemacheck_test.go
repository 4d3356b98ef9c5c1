package reports

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// validate checks doc against the keywords schema.json uses. No third-party
// validator is available, so this implements just that subset; it fails on
// any keyword it does not know, so the schema cannot quietly outgrow it.
func validate(root, node map[string]any, doc any, path string) []string {
	var errs []string
	fail := func(format string, args ...any) {
		errs = append(errs, path+": "+fmt.Sprintf(format, args...))
	}
	for key, want := range node {
		switch key {
		case "$schema", "$id", "$defs", "title", "description", "properties", "required", "items":
			// Structural keywords are handled with their siblings below.
		case "$ref":
			name, _ := strings.CutPrefix(want.(string), "#/$defs/")
			def, ok := root["$defs"].(map[string]any)[name].(map[string]any)
			if !ok {
				fail("unresolvable $ref %v", want)
				continue
			}
			errs = append(errs, validate(root, def, doc, path)...)
		case "type":
			if got := jsonType(doc); got != want && !(want == "number" && got == "integer") {
				fail("type %s, want %v", got, want)
			}
		case "const":
			if doc != want {
				fail("%v, want const %v", doc, want)
			}
		case "enum":
			if !slices.Contains(want.([]any), doc) {
				fail("%v not in enum %v", doc, want)
			}
		case "minimum":
			if n, ok := doc.(float64); ok && n < want.(float64) {
				fail("%v below minimum %v", n, want)
			}
		case "minLength":
			if s, ok := doc.(string); ok && float64(len(s)) < want.(float64) {
				fail("%q shorter than %v", s, want)
			}
		case "format":
			if s, ok := doc.(string); ok && want == "date-time" {
				if _, err := time.Parse(time.RFC3339, s); err != nil {
					fail("not a date-time: %v", err)
				}
			}
		case "propertyNames":
			if obj, ok := doc.(map[string]any); ok {
				for k := range obj {
					errs = append(errs, validate(root, want.(map[string]any), k, path+"{"+k+"}")...)
				}
			}
		case "additionalProperties":
			// Checked with properties below.
		default:
			fail("validator does not implement keyword %q", key)
		}
	}
	if obj, ok := doc.(map[string]any); ok {
		props, _ := node["properties"].(map[string]any)
		for _, r := range asAnySlice(node["required"]) {
			if _, ok := obj[r.(string)]; !ok {
				fail("missing required %q", r)
			}
		}
		for k, v := range obj {
			if sub, ok := props[k].(map[string]any); ok {
				errs = append(errs, validate(root, sub, v, path+"."+k)...)
				continue
			}
			switch extra := node["additionalProperties"].(type) {
			case bool:
				if !extra {
					fail("unknown property %q", k)
				}
			case map[string]any:
				errs = append(errs, validate(root, extra, v, path+"."+k)...)
			}
		}
	}
	if arr, ok := doc.([]any); ok {
		if items, ok := node["items"].(map[string]any); ok {
			for i, v := range arr {
				errs = append(errs, validate(root, items, v, fmt.Sprintf("%s[%d]", path, i))...)
			}
		}
	}
	return errs
}

func asAnySlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if v == float64(int64(v)) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return reflect.TypeOf(v).String()
}

// schemaErrors validates a JSON document against v1alpha1.Schema().
func schemaErrors(t *testing.T, doc []byte) []string {
	t.Helper()
	var root map[string]any
	if err := json.Unmarshal(v1alpha1.Schema(), &root); err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	return validate(root, root, v, "$")
}

// The validator must reject broken documents, or the conformance test that
// relies on it proves nothing.
func TestValidatorRejects(t *testing.T) {
	r := sampleReport()
	Finalize(r)
	good, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if errs := schemaErrors(t, good); len(errs) > 0 {
		t.Fatalf("finalized sample report does not match the schema:\n%s", strings.Join(errs, "\n"))
	}
	tests := []struct {
		name   string
		mutate func(m map[string]any)
		want   string
	}{
		{"missing result id", func(m map[string]any) { delete(res0(m), "id") }, `missing required "id"`},
		{"unknown field", func(m map[string]any) { m["extra"] = 1 }, `unknown property "extra"`},
		{"bad state", func(m map[string]any) { res0(m)["state"] = "ok" }, "not in enum"},
		{"bad level key", func(m map[string]any) {
			m["summary"].(map[string]any)["counts"].(map[string]any)["Core "] = map[string]any{}
		}, "not in enum"},
		{"null binaries", func(m map[string]any) { m["environment"].(map[string]any)["binaries"] = nil }, "type null"},
		{"bad date", func(m map[string]any) { m["metadata"].(map[string]any)["date"] = "yesterday" }, "not a date-time"},
		{"wrong kind", func(m map[string]any) { m["kind"] = "Report" }, "want const"},
		{"float count", func(m map[string]any) { m["summary"].(map[string]any)["total"] = 1.5 }, "type number, want integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(good, &m); err != nil {
				t.Fatal(err)
			}
			tt.mutate(m)
			bad, _ := json.Marshal(m)
			errs := schemaErrors(t, bad)
			if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, tt.want) }) {
				t.Errorf("want an error containing %q, got %v", tt.want, errs)
			}
		})
	}
}

func res0(m map[string]any) map[string]any {
	return m["results"].([]any)[0].(map[string]any)
}
