package certify

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

// Describe registers the certification as an Ordered Ginkgo container, for
// an author's own Ginkgo suite (var _ = certify.Describe(cfg); not inside
// another Ordered container): a BeforeAll brings the environment up, one
// spec per check of the plugin profile judges the plugin (a check of a
// feature it does not declare is skipped as not-supported), and the
// environment is taken down after the last, Ctrl-C included. The report is
// written under cfg.Output when the last spec is recorded. A plugin or
// certification file that does not load is one failing spec that says why.
// The specs keep running after a failure (ContinueOnFailure): a
// certification judges every check.
func Describe(cfg Config) bool {
	ginkgo.Describe("certify "+subjectName(cfg), ginkgo.Ordered, ginkgo.ContinueOnFailure, func() { describe(cfg) })
	return true
}

// describe builds the container's tree and returns its session (nil when
// the plugin or its certification did not load).
func describe(cfg Config) *session {
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := Load(ctx, cfg)
	var s *session
	if err == nil {
		s, err = newSession(cfg, b, ginkgo.GinkgoLabelFilter())
	}
	if err == nil {
		err = register(s, b)
	}
	if err != nil {
		ginkgo.It("loads the plugin and its certification", func() { ginkgo.Fail(err.Error()) })
		return nil
	}
	return s
}

// register builds the tree of one certification.
func register(s *session, b conformance.Binding) error {
	ginkgo.BeforeAll(func(ctx ginkgo.SpecContext) {
		// Registered first: a bring-up that failed halfway is taken down too.
		ginkgo.DeferCleanup(func(ctx ginkgo.SpecContext) { s.takeDown(ctx) }, ginkgo.NodeTimeout(4*time.Minute))
		if err := s.up(ctx); err != nil {
			ginkgo.Fail(upFailed + err.Error())
		}
	})
	err := conformance.Register(conformance.Config{
		Env:         func() *dsl.Env { return s.dsl },
		Bindings:    []conformance.Binding{b},
		Checks:      s.cfg.Checks(),
		LabelFilter: s.labelFilter,
		Record:      s.record,
		Done: func() {
			// Takes the environment down first if Ginkgo skipped the
			// cleanup (its suite timeout, a second Ctrl-C).
			if _, err := s.finish(context.Background()); err != nil {
				ginkgo.GinkgoWriter.Printf("certify: writing the report: %v\n", err)
			}
		},
	})
	// The last spec of the Ordered container: by then every check was
	// recorded and the report written (Done). It carries every check's
	// labels, so a filter that selects any check selects it too.
	var labels []string
	for _, c := range s.cfg.Checks() {
		labels = append(labels, c.Labels()...)
	}
	slices.Sort(labels)
	ginkgo.It("the "+s.cfg.subjectKind()+" is "+s.cfg.Level, ginkgo.Label(slices.Compact(labels)...), func(ctx ginkgo.SpecContext) {
		if _, err := s.finish(ctx); err != nil {
			ginkgo.Fail("certify: writing the report: " + err.Error())
		}
		s.levelJudged = true
		if p := levelProblem(s.report(), s.cfg.Level); p != "" {
			ginkgo.Fail(p)
		}
	})
	return err
}

// subjectName names the plugin or extension in the test tree.
func subjectName(cfg Config) string {
	switch {
	case cfg.Image != "":
		return cfg.Image
	case cfg.Extension != "":
		return filepath.Base(cfg.Extension)
	}
	return filepath.Base(cfg.PluginDir)
}

// subjectKind is what the run certifies: a plugin or an extension.
func (c Config) subjectKind() string {
	if c.Extension != "" {
		return "extension"
	}
	return "plugin"
}

// Test certifies the plugin of cfg as a plain `go test` test: it runs the
// Ginkgo tree of Describe under t (csi-sanity's sanity.Test), so t fails
// when a check fails, and a spec is reported for each check. A run error
// the checks do not show (a teardown that failed, a report not written)
// fails t too. Call it once per test binary (Ginkgo runs one suite per
// process); the -ginkgo.* flags apply, e.g. -ginkgo.label-filter=PLUG-002.
// Ginkgo's suite timeout is kept inside go test's -timeout, so that a run
// that overruns is stopped and taken down, not killed.
func Test(t *testing.T, cfg Config) {
	t.Helper()
	gomega.RegisterFailHandler(ginkgo.Fail)
	var s *session
	ginkgo.Describe("certify "+subjectName(cfg), ginkgo.Ordered, ginkgo.ContinueOnFailure, func() { s = describe(cfg) })
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	if deadline, ok := t.Deadline(); ok {
		if left := time.Until(deadline) - 5*time.Minute; left > 0 && (suiteConfig.Timeout == 0 || left < suiteConfig.Timeout) {
			suiteConfig.Timeout = left
		}
	}
	conformance.ReporterSettings(&reporterConfig)
	ginkgo.RunSpecs(t, "cmp-conformance certify", suiteConfig, reporterConfig)
	if s == nil {
		return
	}
	if _, err := s.finish(context.Background()); err != nil {
		t.Errorf("certify: %v", err)
	}
	if s.rep != nil && s.rep.Error != "" {
		t.Errorf("certify: the run had an error: %s", s.rep.Error)
	}
	// Unless its spec said it: a filter may have left that spec out too.
	if p := levelProblem(s.report(), s.cfg.Level); p != "" && !s.levelJudged {
		t.Error("certify: " + p)
	}
}
