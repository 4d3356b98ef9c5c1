package certify

import (
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"
)

// failT records a Ginkgo suite's failure instead of failing this test.
type failT struct{ failed bool }

func (f *failT) Fail() { f.failed = true }

// A Config that names no plugin is one failing spec that says what to do,
// before anything is brought up. (RunSpecs runs once per process: this is
// the package's only Ginkgo suite.)
func TestDescribeTurnsABadConfigIntoOneFailingSpec(t *testing.T) {
	var specs types.SpecReports
	ginkgo.ReportAfterSuite("capture", func(r ginkgo.Report) { specs = r.SpecReports })
	Describe(Config{Samples: "../../plugins/plain/certify.yaml"})
	gomega.RegisterFailHandler(ginkgo.Fail)
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	reporterConfig.Succinct, reporterConfig.NoColor = true, true
	ft := &failT{}
	if ginkgo.RunSpecs(ft, "certify (bad config)", suiteConfig, reporterConfig) || !ft.failed {
		t.Fatal("the suite passed with no plugin to certify")
	}
	var its []types.SpecReport
	for _, s := range specs {
		if s.LeafNodeType == types.NodeTypeIt {
			its = append(its, s)
		}
	}
	if len(its) != 1 {
		t.Fatalf("%d specs, want the one that says why nothing could run", len(its))
	}
	if got := its[0]; !got.Failed() || !strings.Contains(got.Failure.Message, "name what to certify") {
		t.Errorf("spec %q: %s %q", got.LeafNodeText, got.State, got.Failure.Message)
	}
}
