package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// ErrBadReport marks a file that is not a report this build can read: not
// JSON, cut short, another API version or kind, or not matching the schema.
// Commands treat it as bad input (exit 2).
var ErrBadReport = errors.New("not a readable report")

// Read loads and validates report.json. The API version and kind are checked
// first, so that a report of another version is named as such rather than
// as a list of schema violations.
func Read(path string) (*v1alpha1.ConformanceReport, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return nil, fmt.Errorf("%w: %s is not whole JSON (%v); was it cut short while being written or copied?", ErrBadReport, path, err)
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrBadReport, path, err)
	}
	if head.APIVersion != v1alpha1.APIVersion || head.Kind != v1alpha1.Kind {
		return nil, fmt.Errorf("%w: %s is %q of %q; this cmp-conformance reads %s of %s (use the cmp-conformance that wrote it)",
			ErrBadReport, path, head.Kind, head.APIVersion, v1alpha1.Kind, v1alpha1.APIVersion)
	}
	if err := v1alpha1.Validate(data); err != nil {
		return nil, fmt.Errorf("%w: %s %v", ErrBadReport, path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	r := &v1alpha1.ConformanceReport{}
	if err := dec.Decode(r); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBadReport, path, err)
	}
	return r, nil
}
