package v1alpha1

import _ "embed"

// schema is written by hand (not generated) so that its descriptions can say
// what each field means; schema_test.go keeps it in step with the Go types.
//
//go:embed schema.json
var schema []byte

// Schema returns the JSON Schema (draft 2020-12) of ConformanceReport.
// It returns a copy so that callers cannot alter the embedded bytes.
func Schema() []byte {
	return append([]byte(nil), schema...)
}
