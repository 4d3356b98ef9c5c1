package certify

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
	"github.com/cmp-conformance/cmp-conformance/reports"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
	"github.com/cmp-conformance/cmp-conformance/suites/runner"
)

// session is one certification run: its environment and its report.
type session struct {
	cfg       Config
	binding   conformance.Binding
	out       string
	reportDir string
	rep       *v1alpha1.ConformanceReport
	rec       *reports.Recorder

	env        *environment.Environment
	api        *runner.API
	dsl        *dsl.Env
	started    time.Time
	suiteStart time.Time

	mu       sync.Mutex
	runErrs  []error
	finished bool
	code     int
	err      error
}

// newSession opens the run's report: results are recorded as each check
// finishes, so an interrupted run keeps them.
func newSession(cfg Config, b conformance.Binding) (*session, error) {
	out, err := filepath.Abs(cfg.Output)
	if err != nil {
		return nil, err
	}
	started := time.Now()
	runID := newRunID(started)
	s := &session{cfg: cfg, binding: b, out: out, reportDir: filepath.Join(out, "reports", runID), started: started}
	s.rep = runner.NewReport(runID, environment.RuntimeEmbedded, reports.ProfilePlugin, started)
	if s.rec, err = reports.OpenRecorder(filepath.Join(s.reportDir, "results.jsonl")); err != nil {
		return nil, err
	}
	return s, nil
}

func newRunID(t time.Time) string {
	b := make([]byte, 2)
	_, _ = rand.Read(b)
	return t.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b)
}

// up brings the environment up with the subject as Argo CD's only plugin,
// and connects to Argo CD.
func (s *session) up(ctx context.Context) error {
	stateFile := filepath.Join(s.out, "env", "state.json")
	note, err := environment.Guard(ctx, stateFile)
	if err != nil {
		return s.failed(err)
	}
	if note != "" {
		s.rep.Environment.Notes = append(s.rep.Environment.Notes, note)
	}
	var path []string
	for _, dir := range s.cfg.PluginPath {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return s.failed(err)
		}
		path = append(path, abs)
	}
	env, err := environment.Up(ctx, environment.Config{
		Runtime: environment.RuntimeEmbedded, ArgoCDVersion: s.cfg.ArgoCDVersion, PortBase: s.cfg.PortBase,
		Plugins: []argocd.Plugin{s.binding.Subjects[conformance.RoleSubject].Plugin}, PluginPath: path,
		RunID: s.rep.Metadata.RunID, LogDir: filepath.Join(s.reportDir, "logs"), StateFile: stateFile,
		Toolchain: s.cfg.Toolchain, Progress: s.cfg.Progress, ReadyTimeout: s.cfg.ReadyTimeout,
	})
	s.env = env
	runner.DescribeEnvironment(s.rep, env, []conformance.Binding{s.binding})
	if err != nil {
		return s.failed(fmt.Errorf("bring-up: %w", err))
	}
	s.rep.Timings.BringUpSeconds = env.BringUp.Seconds()
	s.rep.Metadata.Command = fmt.Sprintf("%s (certify library, Argo CD %s)", s.rep.Metadata.Command, env.Tools.ArgoCDVersion)
	if s.api, err = runner.Connect(ctx, env); err != nil {
		return s.failed(err)
	}
	if s.dsl, err = runner.DSL(env, s.api); err != nil {
		return s.failed(err)
	}
	s.suiteStart = time.Now()
	return nil
}

// failed keeps a run error for the report.
func (s *session) failed(err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runErrs = append(s.runErrs, err)
	return err
}

// down takes the environment down; it ignores ctx's cancellation (Ctrl-C
// asks for it) but not forever.
func (s *session) down(ctx context.Context) error {
	if !s.suiteStart.IsZero() {
		s.rep.Timings.SuiteSeconds = time.Since(s.suiteStart).Seconds()
	}
	if s.api != nil {
		s.api.Close()
	}
	if s.env == nil {
		return nil
	}
	t := time.Now()
	downCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Minute)
	defer cancel()
	err := s.env.Down(downCtx)
	s.rep.Timings.Phases = append(s.rep.Timings.Phases, v1alpha1.Phase{Name: "teardown", Seconds: time.Since(t).Seconds()})
	if err != nil {
		return s.failed(fmt.Errorf("teardown: %w", err))
	}
	return nil
}

func (s *session) record(r v1alpha1.Result) {
	if err := s.rec.Record(r); err != nil {
		s.failed(err)
	}
	fmt.Fprintf(s.cfg.Progress, "check %-10s %-13s %5.1fs  %s\n", r.ID, r.State, r.DurationSeconds, r.Title)
}

// finish writes the report once; later calls return the first outcome.
// interrupted marks a run Ginkgo stopped early.
func (s *session) finish(interrupted bool) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return s.code, s.err
	}
	s.finished = true
	if err := errors.Join(s.runErrs...); err != nil {
		s.rep.Error = err.Error()
	}
	s.rep.Interrupted = s.rep.Interrupted || interrupted
	s.rep.Timings.TotalSeconds = time.Since(s.started).Seconds()
	s.code, s.err = runner.WriteReport(s.out, s.reportDir, s.rep, false, s.cfg.Progress)
	s.err = errors.Join(s.err, s.rec.Close())
	return s.code, s.err
}
