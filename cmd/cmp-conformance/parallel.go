package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/spf13/pflag"

	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
	"github.com/cmp-conformance/cmp-conformance/internal/turns"
	"github.com/cmp-conformance/cmp-conformance/plugins"
	"github.com/cmp-conformance/cmp-conformance/reports"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
	"github.com/cmp-conformance/cmp-conformance/suites/parallel"
)

// A parallel run (--parallel N) is wired here: package parallel shares the
// catalogue out and merges the shares' reports; each share is this program
// again (run --units), with the run's own flags.

// childArgs are the flags of one share: the run's own, at the version the
// parent resolved, with the share's output, units, ports and the plugin
// programs the parent built (bin, when it built them).
func childArgs(f *runFlags, version, output, unitsFile, claims, bin string, portBase int) []string {
	pin := []string{"--argocd-version", version}
	if f.argocdSource != "" { // every share builds (or finds cached) the same tree
		pin = []string{"--argocd-source", f.argocdSource}
	}
	command := "run"
	if f.certify != nil {
		command = "certify"
	}
	args := append([]string{command, "--parallel", "1", "--runtime", f.runtime}, pin...)
	args = append(args, "--output", output, "--units", unitsFile, "--claims", claims,
		"--port-base", strconv.Itoa(portBase), "--label-filter", f.labelFilter, "--timeout", f.timeout.String(),
		"--ready-timeout", f.readyTimeout.String(), "--work-tmpfs="+strconv.FormatBool(f.workTmpfs))
	if bin != "" {
		args = append(args, "--plugin-bin", bin)
	}
	if f.argocdBinary != "" {
		args = append(args, "--argocd-binary", f.argocdBinary)
	}
	if f.argocdImage != "" {
		args = append(args, "--argocd-image", f.argocdImage)
	}
	if s := f.certify; s != nil {
		for _, o := range []struct{ flag, value string }{
			{"--image", s.image}, {"--config", s.config}, {"--entrypoint", s.entrypoint}, {"--plugin-dir", s.dir}, {"--samples", s.samples},
		} {
			if o.value != "" {
				args = append(args, o.flag, o.value)
			}
		}
	}
	for _, p := range f.plugins {
		args = append(args, "--plugin", p)
	}
	for _, p := range f.images {
		args = append(args, "--plugin-image", p)
	}
	for _, p := range f.pluginPath {
		args = append(args, "--plugin-path", p)
	}
	for _, o := range []struct {
		flag string
		on   bool
	}{{"--self-test", f.selfTest}, {"--fail-fast", f.failFast}, {"--verbose", f.verbose}, {"--no-download", f.noDownload}, {"--no-build", f.noBuild}} {
		if o.on {
			args = append(args, o.flag)
		}
	}
	return args
}

// bindParallel binds --parallel (default def) and the hidden flags a share
// of a parallel run is started with.
func (f *runFlags) bindParallel(fl *pflag.FlagSet, def int) {
	fl.IntVar(&f.parallel, "parallel", def, "share the checks out to this many environments run side by side (each its own cluster, Argo CD and ports from --port-base + 100 per share), then merge their results into one report; checks mostly wait on Argo CD, so 3 suit 2 cores")
	fl.StringVar(&f.units, "units", "", "the share of one environment of a parallel run (set by --parallel)")
	_ = fl.MarkHidden("units")
	fl.StringVar(&f.claims, "claims", "", "the folder where the environments of a parallel run claim the checks they share (set by --parallel)")
	_ = fl.MarkHidden("claims")
	fl.StringVar(&f.pluginBin, "plugin-bin", "", "the plugin programs a parallel run built (set by --parallel)")
	_ = fl.MarkHidden("plugin-bin")
}

// parallelUsage refuses what a parallel run cannot do, before anything starts.
func (f *runFlags) parallelUsage() error {
	switch {
	case f.parallel < 1:
		return fmt.Errorf("--parallel %d: give 1 (one environment) or more", f.parallel)
	case f.parallel == 1:
		return nil
	case f.upgradePath != "":
		return errors.New("--parallel cannot be combined with --upgrade-path: the hops of a path run in one environment")
	case f.units != "":
		return errors.New("--parallel cannot be combined with --units (the share of a parallel run)")
	case f.runtime != "embedded":
		return fmt.Errorf("--parallel needs --runtime embedded: the %s runtime has one cluster", f.runtime)
	case f.portBase+f.parallel*parallel.Stride-1 > 65535:
		return fmt.Errorf("--parallel %d from --port-base %d needs ports up to %d (%d per environment): give a lower --port-base or fewer environments",
			f.parallel, f.portBase, f.portBase+f.parallel*parallel.Stride-1, parallel.Stride)
	}
	return nil
}

// runParallel is the parent of a parallel run: it obtains the toolchain and
// builds the version's Helm plugin once (the shares then find every binary
// cached and use the plugin programs built here), shares the catalogue out,
// runs the shares and merges their results into rep and rec.
func runParallel(ctx context.Context, f *runFlags, cfg environment.Config, plan *plugins.Plan, rep *v1alpha1.ConformanceReport,
	rec *reports.Recorder, reportDir string) error {
	tools, err := environment.Tools(ctx, cfg)
	if err != nil {
		return err
	}
	for _, n := range tools.Notes {
		fmt.Fprintln(os.Stderr, "note:", n)
	}
	if cfg.ToolsReady != nil {
		if err := cfg.ToolsReady(ctx, tools, &cfg); err != nil {
			return err
		}
	}
	selected, err := types.ParseLabelFilter(f.labelFilter)
	if err != nil {
		return err
	}
	known := parallel.DefaultTimings()
	for k, s := range parallel.PastTimings(filepath.Dir(reportDir), tools.ArgoCDVersion, filepath.Base(reportDir)) {
		known[k] = s
	}
	shares := parallel.Deal(parallel.Units(plan.Bindings, conformance.All(), selected, known), f.parallel)
	if len(shares) == 0 {
		return fmt.Errorf("--label-filter %q selects no check of this run", f.labelFilter)
	}
	// The shares' bring-ups take turns with the machine's runs; where they
	// cannot, the shares start one after another instead.
	staggered := false
	if err := turns.Usable(turns.Dir()); err != nil {
		fmt.Fprintf(os.Stderr, "note: %v; the environments start one after another instead\n", err)
		staggered = true
	}
	fmt.Fprintf(os.Stderr, "parallel: %s\n", parallel.Describe(shares, staggered))
	rep.Metadata.Command = reproduce(f, tools.ArgoCDVersion)
	start := time.Now()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	runs := parallel.Run(ctx, filepath.Join(reportDir, "shares"), shares, staggered, func(i int, output, unitsFile, claims string) *exec.Cmd {
		return exec.Command(self, childArgs(f, tools.ArgoCDVersion, output, unitsFile, claims, plan.Bin, f.portBase+i*parallel.Stride)...)
	})
	rep.Timings.SuiteSeconds = time.Since(start).Seconds()
	return parallel.Merge(rep, rec, runs, filepath.Join(reportDir, "logs"))
}

func envInt(key string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(key)); err == nil {
		return v
	}
	return def
}
