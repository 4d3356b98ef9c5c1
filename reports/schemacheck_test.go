package reports

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// schemaErrors validates a JSON document with v1alpha1.Validate, the
// validator every written report goes through, one violation per line.
func schemaErrors(t *testing.T, doc []byte) []string {
	t.Helper()
	if err := v1alpha1.Validate(doc); err != nil {
		return strings.Split(err.Error(), "\n")
	}
	return nil
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
		{"missing result id", func(m map[string]any) { delete(res0(m), "id") }, `missing property 'id'`},
		{"unknown field", func(m map[string]any) { m["extra"] = 1 }, `additional properties 'extra' not allowed`},
		{"bad state", func(m map[string]any) { res0(m)["state"] = "ok" }, "value must be one of"},
		{"bad level key", func(m map[string]any) {
			m["summary"].(map[string]any)["counts"].(map[string]any)["Core "] = map[string]any{}
		}, "value must be one of"},
		{"null binaries", func(m map[string]any) { m["environment"].(map[string]any)["binaries"] = nil }, "got null, want"},
		{"bad date", func(m map[string]any) { m["metadata"].(map[string]any)["date"] = "yesterday" }, "is not valid date-time"},
		{"wrong kind", func(m map[string]any) { m["kind"] = "Report" }, "value must be 'ConformanceReport'"},
		{"float count", func(m map[string]any) { m["summary"].(map[string]any)["total"] = 1.5 }, "got number, want integer"},
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
