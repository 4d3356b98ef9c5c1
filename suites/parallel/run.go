package parallel

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
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cmp-conformance/cmp-conformance/internal/proc"
	"github.com/cmp-conformance/cmp-conformance/reports"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// Child is one share's process.
type Child struct {
	index  int
	units  []Unit
	output string
	err    error
	report *v1alpha1.ConformanceReport
	// exited is closed once the child has been waited for.
	exited chan struct{}
}

// UpFile is what a share writes in its output folder once its environment
// is up: the parent starts the next share then.
const UpFile = "environment-up"

// Run runs the shares as child processes and waits for all of them.
// Bring-ups side by side compete for the cores (three took a minute each on
// 2 cores, one alone 13 s), so they take turns with every run of the machine
// (package turns), and the shares are started at once: each queues for its
// turn from the start, ahead of runs that come later (make test's side step
// started the certification's shares after the upgrade paths' and examples'
// bring-ups had queued, and two of them idled behind those). staggered is for
// when the turns are unusable: each share is then started once the one
// before it has brought its environment up (or ended), as turns would have
// ordered them, while the first environment already takes checks from the
// pool.
// The run's context ending (Ctrl-C, SIGTERM) sends each child SIGINT, as a
// terminal would: each tears its environment down and writes its report; a
// child that has not stopped within stopGrace is killed. On Linux a child
// also gets SIGINT when this process dies without a word (SIGKILL, a crash),
// so that no environment outlives the run.
//
// command makes the process of share index, writing under output, given
// the file of its units and the folder of the run's claims.
func Run(ctx context.Context, dir string, shares [][]Unit, staggered bool, command func(index int, output, unitsFile, claims string) *exec.Cmd) []*Child {
	claims := filepath.Join(dir, "claims")
	dirErr := os.MkdirAll(claims, 0o755)
	runs := make([]*Child, len(shares))
	for i, us := range shares {
		runs[i] = &Child{index: i, units: us, output: filepath.Join(dir, strconv.Itoa(i)), exited: make(chan struct{})}
	}
	var wg sync.WaitGroup
	var outMu sync.Mutex
	for i, r := range runs {
		if i > 0 && staggered {
			waitUp(ctx, runs[i-1])
		}
		r.err = dirErr
		if r.err == nil {
			r.err = startShare(ctx, command, claims, r, &wg, &outMu)
		}
		if r.err != nil {
			close(r.exited)
		}
	}
	wg.Wait()
	for _, r := range runs {
		r.report = ReadReport(filepath.Join(r.output, "reports", reports.LatestLink, reports.ReportJSON))
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
func startShare(ctx context.Context, command func(int, string, string, string) *exec.Cmd, claims string, r *Child, wg *sync.WaitGroup, outMu *sync.Mutex) error {
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
	cmd := command(r.index, r.output, unitsFile, claims)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	cmd.SysProcAttr = childProcAttr()
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = cmd.Stdout
	// Held until the share has exited: its parent-death signal is tied to
	// the thread that started it.
	if err := proc.StartHeld(cmd.Start, r.exited); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "parallel: share %d started (pid %d): %s\n", r.index, cmd.Process.Pid, r.output)
	copied := make(chan struct{})
	wg.Add(2)
	go func() {
		defer wg.Done()
		defer close(copied)
		prefixLines(out, fmt.Sprintf("[share %d] ", r.index), outMu)
	}()
	go func() {
		defer wg.Done()
		defer close(r.exited)
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

// waitUp returns once r's environment is up, r has ended, or ctx is done.
func waitUp(ctx context.Context, r *Child) {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(filepath.Join(r.output, UpFile)); err == nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-r.exited:
			return
		case <-tick.C:
		}
	}
}

// stopGrace bounds a child's stop after an interrupt: more than its own
// teardown's bound (3 minutes), so that it can still write its report.
const stopGrace = 4 * time.Minute

// progressMark is a line of Ginkgo's progress marks alone.
var progressMark = regexp.MustCompile(`^•+( \[[0-9.]+ seconds\])?\n?$`)

// prefixLines copies r to stderr line by line, each line prefixed; it reads
// to the end whatever the lines' length, so a child never blocks on output.
func prefixLines(r io.Reader, prefix string, mu *sync.Mutex) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		// A share's progress marks alone (Ginkgo's • per spec, with its
		// time when it ends its line) say nothing its check lines do not.
		if line != "" && !progressMark.MatchString(line) {
			mu.Lock()
			fmt.Fprintln(os.Stderr, prefix+strings.TrimSuffix(line, "\n"))
			mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// Merge records every share's results into the run's recorder, fills
// the report's environment and timings from the shares' reports, and links
// each share's logs into the run's logs folder (logs/share-N). A share that
// wrote no report, failed outside any check, or left a unit of its share
// without a result (other than by an interrupt) makes the run fail with its
// error: its checks are never silently dropped.
func Merge(rep *v1alpha1.ConformanceReport, rec *reports.Recorder, runs []*Child, logDir string) error {
	var errs []error
	var allResults []v1alpha1.Result
	complete := true
	for _, r := range runs {
		results, selfTests, err := reports.ReadAll(filepath.Join(r.output, "reports", reports.LatestLink, "results.jsonl"))
		if err != nil {
			errs = append(errs, fmt.Errorf("share %d: %w", r.index, err))
		}
		allResults = append(allResults, results...)
		complete = complete && r.err == nil && r.report != nil && r.report.Error == "" && !r.report.Interrupted
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
			if lost := unrecorded(slices.DeleteFunc(slices.Clone(r.units), func(u Unit) bool { return u.Pooled }), results, selfTests); len(lost) > 0 {
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
			v1alpha1.Phase{Name: fmt.Sprintf("share %d: suite", r.index), Seconds: r.report.Timings.SuiteSeconds},
			v1alpha1.Phase{Name: fmt.Sprintf("share %d: whole run", r.index), Seconds: r.report.Timings.TotalSeconds})
		for _, p := range r.report.Timings.Phases {
			if p.Name == "teardown" || strings.HasPrefix(p.Name, reports.SuiteProfilePrefix) {
				rep.Timings.Phases = append(rep.Timings.Phases, v1alpha1.Phase{Name: fmt.Sprintf("share %d: %s", r.index, p.Name), Seconds: p.Seconds})
			}
		}
		if logs := filepath.Join(r.output, "reports", r.report.Metadata.RunID, "logs"); r.report.Metadata.RunID != "" {
			if _, err := os.Stat(logs); err == nil {
				errs = append(errs, linkLogs(logDir, fmt.Sprintf("share-%d", r.index), logs))
			}
		}
	}
	if len(runs) > 0 && complete {
		if lost := unrecorded(pooledUnits(runs[0].units), allResults, nil); len(lost) > 0 {
			errs = append(errs, fmt.Errorf("no share recorded %s of the pool", strings.Join(lost, ", ")))
		}
	}
	rep.Environment.Notes = append(rep.Environment.Notes, fmt.Sprintf("the checks ran in %d parallel environments (--parallel), each taking the next check from a shared queue as it finished one (a witness's checks stay in the environment that starts its plugins); each share's own report is under shares/N in this report's folder, its logs under logs/share-N", len(runs)))
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
func unrecorded(us []Unit, results []v1alpha1.Result, selfTests []v1alpha1.SelfTestResult) []string {
	have := map[string]bool{}
	for _, r := range results {
		have[Key("conformance", r.ID)] = true
	}
	for _, st := range selfTests {
		have[Key(st.Witness, "")] = true
	}
	var lost []string
	for _, u := range us {
		if u.Binding != "conformance" && u.Check != "" {
			continue // not a unit this parent makes
		}
		if !have[Key(u.Binding, u.Check)] {
			lost = append(lost, strings.TrimSuffix(u.Binding+" "+u.Check, " "))
		}
	}
	return lost
}

// pooledUnits are the units of us every share lists.
func pooledUnits(us []Unit) []Unit {
	return slices.DeleteFunc(slices.Clone(us), func(u Unit) bool { return !u.Pooled })
}

// Describe says how the units were shared out, how the environments start
// (Run's staggered), and what each is expected to be busy for (Plan).
func Describe(shares [][]Unit, staggered bool) string {
	busy, _ := Plan(shares)
	var expected, own []string
	dealt := false
	for i, s := range shares {
		var w float64
		for _, u := range s {
			if !u.Pooled && u.Weight > 0 {
				w += u.Weight
				dealt = true
			}
		}
		own = append(own, fmt.Sprintf("%d: ~%.0fs", i, w))
		expected = append(expected, fmt.Sprintf("~%.0fs", busy[i]))
	}
	start := "started at once, their bring-ups taking turns with this machine's others"
	if staggered {
		start = "each started once the one before it is up"
	}
	out := fmt.Sprintf("%d environments, %s", len(shares), start)
	if pool := pooledUnits(shares[0]); len(pool) > 0 {
		var w float64
		for _, u := range pool {
			w += u.Weight
		}
		out += fmt.Sprintf(", taking checks from one queue (%d checks, ~%.0fs)", len(pool), w)
	}
	if dealt {
		out += "; witnesses of their own (" + strings.Join(own, ", ") + ")"
	}
	return out + "; expected busy: " + strings.Join(expected, ", ")
}
