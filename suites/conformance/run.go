package conformance

import (
	"os"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"
	"golang.org/x/term"
)

// RunOptions are the Ginkgo settings a CLI run exposes.
type RunOptions struct {
	// LabelFilter selects checks by ID, area, level or feature, e.g.
	// "smoke && Core" or "!Provisional".
	LabelFilter string
	FailFast    bool
	Verbose     bool
	// Timeout bounds the whole suite (Ginkgo's --timeout).
	Timeout time.Duration
}

// Run runs the registered tree outside `go test`, as csi-sanity's binary
// does. Ginkgo handles Ctrl-C here: the running spec is interrupted, its
// cleanup runs, the results recorded so far stay, and Run returns false.
func Run(opts RunOptions) bool {
	gomega.RegisterFailHandler(ginkgo.Fail)
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	suiteConfig.LabelFilter = opts.LabelFilter
	suiteConfig.FailFast = opts.FailFast
	if opts.Timeout > 0 {
		suiteConfig.Timeout = opts.Timeout
	}
	reporterConfig.Verbose = opts.Verbose
	ReporterSettings(&reporterConfig)
	return ginkgo.RunSpecs(testingT{}, "cmp-conformance", suiteConfig, reporterConfig)
}

// ReporterSettings turns Ginkgo's colours off unless its output is a
// terminal (or NO_COLOR is set): a CI log or a file gets plain text. The
// run prints a line of its own per check, so Ginkgo's progress marks stay
// off those lines: no S per skipped spec (a check left out by the label
// filter or not applicable here: the report says which), and each spec's •
// ends its line. Without a newline they ran into the next check's line
// ("•Scheck CUST-001 passed").
func ReporterSettings(rc *types.ReporterConfig) {
	rc.NoColor = rc.NoColor || os.Getenv("NO_COLOR") != "" || !term.IsTerminal(int(os.Stdout.Fd()))
	rc.SilenceSkips, rc.ForceNewlines = true, true
}

// testingT satisfies ginkgo.GinkgoTestingT outside `go test`; the verdict is
// RunSpecs' return value and the report, not this.
type testingT struct{}

func (testingT) Fail() {}
