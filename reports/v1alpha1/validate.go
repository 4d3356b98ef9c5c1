package v1alpha1

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compiled is the schema compiled once, with format assertions on (draft
// 2020-12 treats "format" as an annotation unless asked): a report's dates
// must be date-times, not any string.
var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("the embedded report schema is not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const url = "https://cmp-conformance.dev/schemas/reports/v1alpha1/conformancereport.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
})

// Validate checks a report document (report.json's bytes) against the
// schema with a maintained JSON Schema validator (santhosh-tekuri/jsonschema,
// draft 2020-12). The error lists every violation with its JSON pointer.
func Validate(doc []byte) error {
	sch, err := compiled()
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("not a JSON document: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("does not match the %s schema: %w", APIVersion, err)
	}
	return nil
}
