package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
	"github.com/cmp-conformance/cmp-conformance/reports"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

// Session is one run from the opening of its report to its writing: the
// results recorded as each check ends (an interrupted run keeps them), the
// environment brought up and connected to, its teardown, the verdict. The
// cmp-conformance binary (run, certify) and the certify library both run
// through it, so that they cannot disagree on what a run records.
type Session struct {
	// Out is the output folder; ReportDir the run's folder under its reports.
	Out, ReportDir string
	Report         *v1alpha1.ConformanceReport
	// Env, API and DSL are set by Up and Connect.
	Env *environment.Environment
	API *API
	DSL *dsl.Env
	// Progress gets each result's line and the verdict.
	Progress io.Writer

	rec                 *reports.Recorder
	started, suiteStart time.Time
}

// Open starts a run's report under output/reports/<run id>/ and its record
// of results.
func Open(output, runtimeName, profile, labelFilter string, started time.Time, progress io.Writer) (*Session, error) {
	out, err := filepath.Abs(output)
	if err != nil {
		return nil, err
	}
	if progress == nil {
		progress = os.Stderr
	}
	runID := NewRunID(started)
	s := &Session{Out: out, ReportDir: filepath.Join(out, "reports", runID), Report: NewReport(runID, runtimeName, profile, started),
		Progress: progress, started: started}
	s.Report.Metadata.LabelFilter = labelFilter
	if s.rec, err = reports.OpenRecorder(filepath.Join(s.ReportDir, "results.jsonl")); err != nil {
		return nil, err
	}
	return s, nil
}

// StateFile is where the environment's state is kept (environment.Guard).
func (s *Session) StateFile() string { return filepath.Join(s.Out, "env", "state.json") }

// LogDir is where the environment's logs go.
func (s *Session) LogDir() string { return filepath.Join(s.ReportDir, "logs") }

// Recorder is the run's record of results.
func (s *Session) Recorder() *reports.Recorder { return s.rec }

// Note adds a note to the report's environment.
func (s *Session) Note(note string) {
	s.Report.Environment.Notes = append(s.Report.Environment.Notes, note)
}

// Guard refuses to start beside an environment an earlier run left behind
// that still runs, and notes what it cleaned up (environment.Guard).
func (s *Session) Guard(ctx context.Context) error {
	note, err := environment.Guard(ctx, s.StateFile())
	if note != "" {
		s.Note(note)
	}
	return err
}

// Up brings the environment of cfg up and describes it in the report (what
// came up of it too, when it failed halfway); bindings are the plugins the
// run judges.
func (s *Session) Up(ctx context.Context, cfg environment.Config, bindings []conformance.Binding) error {
	env, err := environment.Up(ctx, cfg)
	s.Env = env
	DescribeEnvironment(s.Report, env, bindings)
	if err != nil {
		return fmt.Errorf("bring-up: %w", err)
	}
	s.Report.Timings.BringUpSeconds = env.BringUp.Seconds()
	return nil
}

// Connect logs in to the environment's Argo CD and gives the checks their
// DSL environment; again after Argo CD's server restarted (an upgrade hop),
// it reconnects and points the same DSL environment at the new connection.
// The suite's time counts from the first.
func (s *Session) Connect(ctx context.Context) error {
	if s.API != nil {
		_ = s.API.Close()
		s.API = nil
	}
	api, err := Connect(ctx, s.Env)
	if err != nil {
		return err
	}
	s.API = api
	if s.DSL == nil {
		if s.DSL, err = DSL(s.Env, api); err != nil {
			return err
		}
		s.suiteStart = time.Now()
		return nil
	}
	s.DSL.Apps, s.DSL.Repos, s.DSL.RepoCreds, s.DSL.Token = api.Apps, api.Repos, api.RepoCreds, api.Token
	if in := s.Env.Installed; in != nil { // a new port-forward
		s.DSL.ServerURL = "https://" + in.ServerAddr
	}
	return nil
}

// Record records a check's result and prints its line.
func (s *Session) Record(r v1alpha1.Result) error {
	err := s.rec.Record(r)
	PrintResult(s.Progress, r)
	return err
}

// Down ends the suite's time, closes the connection and takes the
// environment down (TearDown), when there is one.
func (s *Session) Down(ctx context.Context) error {
	if !s.suiteStart.IsZero() {
		s.Report.Timings.SuiteSeconds = time.Since(s.suiteStart).Seconds()
	}
	if s.API != nil {
		_ = s.API.Close()
		s.API = nil
	}
	if s.Env == nil {
		return nil
	}
	return TearDown(ctx, s.Env, s.Report)
}

// Finish writes the report with runErr as the run's error and returns the
// run's exit status (WriteReport); suiteFailed says Ginkgo did not pass.
func (s *Session) Finish(runErr error, suiteFailed bool) (int, error) {
	if runErr != nil {
		s.Report.Error = runErr.Error()
	}
	s.Report.Timings.TotalSeconds = time.Since(s.started).Seconds()
	code, err := WriteReport(s.Out, s.ReportDir, s.Report, suiteFailed, !s.suiteStart.IsZero(), s.Progress)
	return code, errors.Join(err, s.rec.Close())
}
