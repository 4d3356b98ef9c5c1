//go:build certify

// The plain `go test` form of the certify library: one test certifies the
// plugin's image on the samples of certify.yaml. It brings up Argo CD, so it
// sits behind a build tag, apart from the unit tests:
//
//	go test -tags certify -timeout 30m ./examples/shell-plugin
//
// The report lands in _output/reports/latest (summary.md, with the badge).
package shellplugin_test

import (
	"testing"

	"github.com/cmp-conformance/cmp-conformance/suites/certify"
)

func TestCertify(t *testing.T) {
	certify.Test(t, certify.Config{
		Image:   "cmp-conformance/example-shell-plugin:dev", // make example-images builds it
		Samples: "certify.yaml",
	})
}
