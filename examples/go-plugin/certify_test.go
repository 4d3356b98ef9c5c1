//go:build certify

// The Ginkgo form of the certify library: the certification is one Ordered
// container in the plugin's own Ginkgo suite, beside the author's specs. It
// brings up Argo CD, so it sits behind a build tag, apart from unit tests:
//
//	go test -tags certify -timeout 30m ./examples/go-plugin
//
// This plugin has a real flaw (a render timestamp): PLUG-004 fails, so this
// suite fails, and the report in _output/reports/latest says
// Not Conformant, for PLUG-004 alone. `make examples` checks exactly that.
package goplugin_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/suites/certify"
)

func TestGoPlugin(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "example go plugin")
}

// The author's own specs run in the same suite.
var _ = Describe("plugin.yaml", func() {
	It("is what argocd-cmp-server reads, with nothing it would ignore", func() {
		p, err := argocd.LoadPlugin(".")
		Expect(err).NotTo(HaveOccurred())
		Expect(p.FullName()).To(Equal("example-inventory-v1.0"))
		Expect(p.Warnings).To(BeEmpty())
	})
})

var _ = certify.Describe(certify.Config{
	Image:   "cmp-conformance/example-go-plugin:dev", // make example-images builds it
	Samples: "certify.yaml",
})
