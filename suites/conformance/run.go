package conformance

import (
	"os"
	"time"

	"github.com/onsi/ginkgo/v2"
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
	// Colour only for a terminal: a CI log or a file gets plain text.
	reporterConfig.NoColor = reporterConfig.NoColor || os.Getenv("NO_COLOR") != "" || !term.IsTerminal(int(os.Stdout.Fd()))
	return ginkgo.RunSpecs(testingT{}, "cmp-conformance", suiteConfig, reporterConfig)
}

// testingT satisfies ginkgo.GinkgoTestingT outside `go test`; the verdict is
// RunSpecs' return value and the report, not this.
type testingT struct{}

func (testingT) Fail() {}
