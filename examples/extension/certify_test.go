//go:build certify

// An extension certified from its author's `go test`, in the plain
// testing.T form of the certify library:
//
//	go test -tags certify -timeout 30m ./examples/extension
//
// This extension has a real flaw: its health.lua reads obj.status.phase
// before asking whether the operator has written a status. Its own tests
// pass (both objects have a status); EXT-004 fails, so this test fails and
// the report in _output/reports/latest says Not Conformant, for EXT-004
// alone. `make examples` checks exactly that.
package extension_test

import (
	"testing"

	"github.com/cmp-conformance/cmp-conformance/suites/certify"
)

func TestPumpExtension(t *testing.T) {
	certify.Test(t, certify.Config{Extension: "."})
}
