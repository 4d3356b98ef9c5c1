package main

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cmp-conformance/cmp-conformance/docs"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
	"github.com/cmp-conformance/cmp-conformance/reports"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
	"github.com/cmp-conformance/cmp-conformance/suites/render"
)

func reportPerformanceCommand() *cobra.Command {
	var write, ciRuns string
	cmd := &cobra.Command{
		Use:   "performance NAME=REPORT... render=TIMINGS",
		Short: "Write the performance page from the reports of make bench's runs and this machine's toolchain cache",
		Long: `performance writes docs/performance.md (make bench runs it): for each
benchmark (` + strings.Join(docs.Benchmarks, ", ") + `), its report's total, bring-up,
suite and teardown times and slowest specs (checks and witness rows); and how long each binary of the
toolchain cache took to obtain when it was first built or downloaded here;
the record of clean-clone runs of make test (--ci-runs; make docs renders
that section alone);
for render, the file its --timings runs appended to. Every benchmark must be
given.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			b := docs.Bench{Date: time.Now(), Machine: machine(), Runs: map[string]*v1alpha1.ConformanceReport{}}
			for _, a := range args {
				name, dir, ok := strings.Cut(a, "=")
				if !ok || !slices.Contains(docs.Benchmarks, name) {
					return fmt.Errorf("%q: give NAME=REPORT, NAME one of %s", a, strings.Join(docs.Benchmarks, ", "))
				}
				if name == "render" { // not a report: the lines render --timings appended
					var err error
					if b.Renders, err = render.ReadTimings(dir); err != nil {
						return err
					}
					continue
				}
				r, err := reports.Read(reportPath(dir))
				if err != nil {
					return err
				}
				b.Runs[name] = r
			}
			tc, err := toolchain.New(toolchain.Options{})
			if err != nil {
				return err
			}
			if b.Tools, err = tc.Cached(); err != nil {
				return err
			}
			if b.CIRuns, err = docs.ReadCIRuns(ciRuns); err != nil {
				return err
			}
			page, err := docs.PerformancePage(b)
			if err != nil {
				return err
			}
			return os.WriteFile(write, page, 0o644)
		}}
	cmd.Flags().StringVar(&write, "write", "docs/performance.md", "the page to write")
	cmd.Flags().StringVar(&ciRuns, "ci-runs", docs.CIRunsFile, "the record of clean-clone runs of make test, shown at the end of the page")
	return cmd
}

// machine names this machine as the page shows it: CPUs, memory, kernel, Go.
func machine() string {
	mem := ""
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int
		if _, err := fmt.Sscanf(string(data), "MemTotal: %d kB", &kb); err == nil {
			mem = fmt.Sprintf(", %.0f GiB", float64(kb)/(1<<20))
		}
	}
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	return fmt.Sprintf("%d CPUs%s, %s/%s, Linux %s, %s", runtime.NumCPU(), mem, runtime.GOOS, runtime.GOARCH, strings.TrimSpace(string(kernel)), runtime.Version())
}
