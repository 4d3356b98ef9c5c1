package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
	"github.com/cmp-conformance/cmp-conformance/reports"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

// A parallel run (--parallel N) splits the catalogue into N shares, each run
// by a child process of this program with an environment of its own (its
// own cluster, Argo CD, plugins and port range), and merges what they
// record into one report. Checks mostly wait on Argo CD (reconciliation,
// refreshes, timeouts), so even 2 cores run several environments well.

// shareRun is one child process of a parallel run.
type shareRun struct {
	index  int
	units  []unit
	output string
	err    error
	report *v1alpha1.ConformanceReport
}

// runShares runs the shares as child processes and waits for all of them.
// The run's context ending (Ctrl-C, SIGTERM) sends each child SIGINT, as a
// terminal would: each tears its environment down and writes its report; a
// child that has not stopped within stopGrace is killed. On Linux a child
// also gets SIGINT when this process dies without a word (SIGKILL, a crash),
// so that no environment outlives the run.
func runShares(ctx context.Context, f *runFlags, version, bin, dir string, shares [][]unit) []*shareRun {
	self, selfErr := os.Executable()
	runs := make([]*shareRun, len(shares))
	for i, us := range shares {
		runs[i] = &shareRun{index: i, units: us, output: filepath.Join(dir, strconv.Itoa(i))}
	}
	var wg sync.WaitGroup
	var outMu sync.Mutex
	started := make(chan struct{})
	allDone := make(chan struct{})
	go func() {
		// The children's parent-death signal is tied to the thread that
		// started them: keep it until every child has been waited for.
		runtime.LockOSThread()
		for _, r := range runs {
			r.err = selfErr
			if r.err == nil {
				r.err = startShare(ctx, f, self, version, bin, r, &wg, &outMu)
			}
		}
		close(started)
		<-allDone
	}()
	<-started
	wg.Wait()
	close(allDone)
	for _, r := range runs {
		r.report = readReport(filepath.Join(r.output, "reports", reports.LatestLink, reports.ReportJSON))
		r.err = shareError(r.err, r.report != nil)
	}
	return runs
}

// shareError is what a share's exit means to the run: exit 1 (a check
// failed) and 3 (partial: a label filter left Core checks out of the share)
// are verdicts the merged results restate, when the share wrote its report.
func shareError(err error, reported bool) error {
	var exit interface{ ExitCode() int }
	if reported && errors.As(err, &exit) && (exit.ExitCode() == 1 || exit.ExitCode() == 3) {
		return nil
	}
	return err
}

// startShare starts one child; the goroutines it adds to wg copy its output
// and wait for it.
func startShare(ctx context.Context, f *runFlags, self, version, bin string, r *shareRun, wg *sync.WaitGroup, outMu *sync.Mutex) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("not started: %w", err)
	}
	if err := os.MkdirAll(r.output, 0o755); err != nil {
		return err
	}
	unitsFile := filepath.Join(r.output, "units.json")
	data, _ := json.MarshalIndent(r.units, "", "  ")
	if err := os.WriteFile(unitsFile, data, 0o644); err != nil {
		return err
	}
	portBase := f.portBase + r.index*shareStride
	cmd := exec.Command(self, childArgs(f, version, r.output, unitsFile, bin, portBase)...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	cmd.SysProcAttr = childProcAttr()
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "parallel: share %d (%d units, pid %d, ports from %d): %s\n", r.index, len(r.units), cmd.Process.Pid, portBase, r.output)
	copied := make(chan struct{})
	wg.Add(2)
	go func() {
		defer wg.Done()
		defer close(copied)
		prefixLines(out, fmt.Sprintf("[share %d] ", r.index), outMu)
	}()
	go func() {
		defer wg.Done()
		// Wait closes the pipe: read it to the end first.
		done := make(chan error, 1)
		go func() { <-copied; done <- cmd.Wait() }()
		select {
		case r.err = <-done:
			return
		case <-ctx.Done():
		}
		_ = cmd.Process.Signal(syscall.SIGINT)
		select {
		case r.err = <-done:
		case <-time.After(stopGrace):
			_ = cmd.Process.Kill()
			r.err = errors.Join(<-done, fmt.Errorf("share %d did not stop within %s of the interrupt and was killed", r.index, stopGrace))
		}
	}()
	return nil
}

// stopGrace bounds a child's stop after an interrupt: more than its own
// teardown's bound (3 minutes), so that it can still write its report.
const stopGrace = 4 * time.Minute

// prefixLines copies r to stderr line by line, each line prefixed; it reads
// to the end whatever the lines' length, so a child never blocks on output.
func prefixLines(r io.Reader, prefix string, mu *sync.Mutex) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			mu.Lock()
			fmt.Fprintln(os.Stderr, prefix+strings.TrimSuffix(line, "\n"))
			mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// childArgs are the flags of one share: the run's own, at the version the
// parent resolved, with the share's output, units, ports and the plugin
// programs the parent built (bin, when it built them).
func childArgs(f *runFlags, version, output, unitsFile, bin string, portBase int) []string {
	args := []string{"run", "--parallel", "1", "--runtime", f.runtime, "--argocd-version", version, "--output", output, "--units", unitsFile,
		"--port-base", strconv.Itoa(portBase), "--label-filter", f.labelFilter, "--timeout", f.timeout.String(),
		"--ready-timeout", f.readyTimeout.String()}
	if bin != "" {
		args = append(args, "--plugin-bin", bin)
	}
	if f.argocdBinary != "" {
		args = append(args, "--argocd-binary", f.argocdBinary)
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

// mergeShares records every share's results into the run's recorder, fills
// the report's environment and timings from the shares' reports, and links
// each share's logs into the run's logs folder (logs/share-N). A share that
// wrote no report, failed outside any check, or left a unit of its share
// without a result (other than by an interrupt) makes the run fail with its
// error: its checks are never silently dropped.
func mergeShares(rep *v1alpha1.ConformanceReport, rec *reports.Recorder, runs []*shareRun, logDir string) error {
	var errs []error
	for _, r := range runs {
		results, selfTests, err := reports.ReadAll(filepath.Join(r.output, "reports", reports.LatestLink, "results.jsonl"))
		if err != nil {
			errs = append(errs, fmt.Errorf("share %d: %w", r.index, err))
		}
		for _, res := range results {
			errs = append(errs, rec.Record(res))
		}
		for _, st := range selfTests {
			errs = append(errs, rec.RecordSelfTest(st))
		}
		if r.err != nil {
			errs = append(errs, fmt.Errorf("share %d: %w", r.index, r.err))
		}
		if r.report == nil {
			errs = append(errs, fmt.Errorf("share %d wrote no report (see its output above, and %s)", r.index, r.output))
			continue
		}
		if r.report.Error != "" {
			errs = append(errs, fmt.Errorf("share %d: %s", r.index, r.report.Error))
		} else if !r.report.Interrupted && r.err == nil {
			if lost := unrecorded(r.units, results, selfTests); len(lost) > 0 {
				errs = append(errs, fmt.Errorf("share %d recorded nothing for %s", r.index, strings.Join(lost, ", ")))
			}
		}
		rep.Interrupted = rep.Interrupted || r.report.Interrupted
		if rep.Environment.ArgoCDVersion == "" && r.report.Environment.ArgoCDVersion != "" {
			host, notes := rep.Environment.Host, rep.Environment.Notes
			rep.Environment, rep.Subject = r.report.Environment, r.report.Subject
			rep.Environment.Host = host
			rep.Environment.Notes = append(notes, r.report.Environment.Notes...)
		}
		rep.Timings.BringUpSeconds = max(rep.Timings.BringUpSeconds, r.report.Timings.BringUpSeconds)
		rep.Timings.Phases = append(rep.Timings.Phases, v1alpha1.Phase{Name: fmt.Sprintf("share %d: bring-up", r.index), Seconds: r.report.Timings.BringUpSeconds},
			v1alpha1.Phase{Name: fmt.Sprintf("share %d: checks", r.index), Seconds: r.report.Timings.SuiteSeconds},
			v1alpha1.Phase{Name: fmt.Sprintf("share %d: whole run", r.index), Seconds: r.report.Timings.TotalSeconds})
		if logs := filepath.Join(r.output, "reports", r.report.Metadata.RunID, "logs"); r.report.Metadata.RunID != "" {
			if _, err := os.Stat(logs); err == nil {
				errs = append(errs, linkLogs(logDir, fmt.Sprintf("share-%d", r.index), logs))
			}
		}
	}
	rep.Environment.Notes = append(rep.Environment.Notes, fmt.Sprintf("the checks ran in %d parallel environments (--parallel); each share's own report is under shares/N in this report's folder, its logs under logs/share-N", len(runs)))
	return errors.Join(errs...)
}

// linkLogs makes logDir/name a relative link to a share's logs folder.
func linkLogs(logDir, name, target string) error {
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	rel, err := filepath.Rel(logDir, target)
	if err != nil {
		rel = target
	}
	link := filepath.Join(logDir, name)
	_ = os.Remove(link)
	return os.Symlink(rel, link)
}

// unrecorded lists the units of a share that left no result: a check of the
// conformance binding with no result, a witness with no self-test row.
func unrecorded(us []unit, results []v1alpha1.Result, selfTests []v1alpha1.SelfTestResult) []string {
	have := map[string]bool{}
	for _, r := range results {
		have[specKey("conformance", r.ID)] = true
	}
	for _, st := range selfTests {
		have[specKey(st.Witness, "")] = true
	}
	var lost []string
	for _, u := range us {
		if u.Binding != "conformance" && u.Check != "" {
			continue // not a unit this parent makes
		}
		if !have[specKey(u.Binding, u.Check)] {
			lost = append(lost, strings.TrimSuffix(u.Binding+" "+u.Check, " "))
		}
	}
	return lost
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
	case f.portBase+f.parallel*shareStride-1 > 65535:
		return fmt.Errorf("--parallel %d from --port-base %d needs ports up to %d (%d per environment): give a lower --port-base or fewer environments",
			f.parallel, f.portBase, f.portBase+f.parallel*shareStride-1, shareStride)
	}
	return nil
}

func describeShares(shares [][]unit) string {
	var parts []string
	for i, s := range shares {
		var w float64
		for _, u := range s {
			w += u.Weight
		}
		parts = append(parts, fmt.Sprintf("share %d: %d units, ~%.0fs", i, len(s), w))
	}
	return strings.Join(parts, "; ")
}

// runParallel is the parent of a parallel run: it obtains the toolchain and
// builds the version's Helm plugin once (the shares then find every binary
// cached and use the plugin programs built here), shares the catalogue out,
// runs the shares and merges their results into rep and rec.
func runParallel(ctx context.Context, f *runFlags, cfg environment.Config, plan *pluginPlan, rep *v1alpha1.ConformanceReport,
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
	known := defaultTimings()
	for k, s := range pastTimings(filepath.Dir(reportDir), tools.ArgoCDVersion, filepath.Base(reportDir)) {
		known[k] = s
	}
	shares := share(units(plan.Bindings, conformance.All(), selected, known), f.parallel)
	if len(shares) == 0 {
		return fmt.Errorf("--label-filter %q selects no check of this run", f.labelFilter)
	}
	fmt.Fprintf(os.Stderr, "parallel: %d environments; %s\n", len(shares), describeShares(shares))
	rep.Metadata.Command = reproduce(f, tools.ArgoCDVersion)
	start := time.Now()
	runs := runShares(ctx, f, tools.ArgoCDVersion, plan.Bin, filepath.Join(reportDir, "shares"), shares)
	rep.Timings.SuiteSeconds = time.Since(start).Seconds()
	return mergeShares(rep, rec, runs, filepath.Join(reportDir, "logs"))
}

func envInt(key string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(key)); err == nil {
		return v
	}
	return def
}
