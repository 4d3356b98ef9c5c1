package certify

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"golang.org/x/term"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

// Describe registers the certification as an Ordered Ginkgo container, for
// an author's own Ginkgo suite (var _ = certify.Describe(cfg)): a BeforeAll
// brings the environment up, one spec per check of the plugin profile judges
// the plugin (a check of a feature it does not declare is skipped as
// not-supported), and the environment is taken down after the last, Ctrl-C
// included. The report is written under cfg.Output when the last spec is
// recorded. A plugin or certification file that does not load is one
// failing spec that says why. The specs keep running after a failure
// (ContinueOnFailure): a certification judges every check.
func Describe(cfg Config) bool {
	cfg = cfg.withDefaults()
	return ginkgo.Describe("certify "+subjectName(cfg), ginkgo.Ordered, ginkgo.ContinueOnFailure, func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		b, err := Load(ctx, cfg)
		if err == nil {
			err = register(cfg, b)
		}
		if err != nil {
			ginkgo.It("loads the plugin and its certification", func() { ginkgo.Fail(err.Error()) })
		}
	})
}

// register builds the tree of one certification.
func register(cfg Config, b conformance.Binding) error {
	s, err := newSession(cfg, b)
	if err != nil {
		return err
	}
	ginkgo.BeforeAll(func(ctx ginkgo.SpecContext) {
		// Registered first: a bring-up that failed halfway is taken down too.
		ginkgo.DeferCleanup(func(ctx ginkgo.SpecContext) {
			gomega.Expect(s.down(ctx)).To(gomega.Succeed())
		}, ginkgo.NodeTimeout(4*time.Minute))
		gomega.Expect(s.up(ctx)).To(gomega.Succeed())
	})
	return conformance.Register(conformance.Config{
		Env:         func() *dsl.Env { return s.dsl },
		Bindings:    []conformance.Binding{b},
		Checks:      conformance.Profile(),
		LabelFilter: ginkgo.GinkgoLabelFilter(),
		Record:      s.record,
		Done: func() {
			if _, err := s.finish(false); err != nil {
				ginkgo.GinkgoWriter.Printf("certify: writing the report: %v\n", err)
			}
		},
	})
}

// subjectName names the plugin in the test tree.
func subjectName(cfg Config) string {
	if cfg.Image != "" {
		return cfg.Image
	}
	return filepath.Base(cfg.PluginDir)
}

// Test certifies the plugin of cfg as a plain `go test` test: it runs the
// Ginkgo tree of Describe under t (csi-sanity's sanity.Test), so t fails
// when a check fails, and a spec is reported for each check. Call it once
// per test binary (Ginkgo runs one suite per process); the -ginkgo.* flags
// apply, e.g. -ginkgo.label-filter=PLUG-002 or -ginkgo.v.
func Test(t *testing.T, cfg Config) {
	t.Helper()
	gomega.RegisterFailHandler(ginkgo.Fail)
	Describe(cfg)
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	// Colour only for a terminal: a CI log gets plain text.
	reporterConfig.NoColor = reporterConfig.NoColor || os.Getenv("NO_COLOR") != "" || !term.IsTerminal(int(os.Stdout.Fd()))
	ginkgo.RunSpecs(t, "cmp-conformance certify", suiteConfig, reporterConfig)
}
