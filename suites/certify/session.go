package certify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
	"github.com/cmp-conformance/cmp-conformance/internal/portrange"
	"github.com/cmp-conformance/cmp-conformance/plugins"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
	"github.com/cmp-conformance/cmp-conformance/suites/runner"
)

// session is one certification run: its environment and its report,
// through runner.Session as the binary's runs. Nothing is written until the
// bring-up starts: a Ginkgo dry run, or a run whose filters leave no check of
// it, writes no report.
type session struct {
	cfg     Config
	binding conformance.Binding
	// labelFilter is the Ginkgo label filter of the run, for the report.
	labelFilter string
	// levelJudged is set once the spec that judges the level ran.
	levelJudged bool

	mu sync.Mutex
	// run is opened when the bring-up starts; results recorded before
	// (specs filtered out ahead of the first that runs) wait in pending.
	run         *runner.Session
	rep         *v1alpha1.ConformanceReport
	dsl         *dsl.Env
	pending     []v1alpha1.Result
	upErr       error
	ports       *portrange.Claim
	runErrs     []error
	interrupted bool
	down        bool
	finished    bool
	code        int
	err         error
}

func newSession(cfg Config, b conformance.Binding, labelFilter string) (*session, error) {
	return &session{cfg: cfg, binding: b, labelFilter: labelFilter}, nil
}

// open starts the report: results are recorded as each check finishes, so
// an interrupted run keeps them.
func (s *session) open() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	run, err := runner.Open(s.cfg.Output, environment.RuntimeEmbedded, s.cfg.Profile(), s.labelFilter, time.Now(), s.cfg.Progress)
	if err != nil {
		return err
	}
	s.run, s.rep = run, run.Report
	for _, r := range s.pending {
		s.runErrs = append(s.runErrs, run.Recorder().Record(r))
	}
	s.pending = nil
	return nil
}

// up brings the environment up with the subject as Argo CD's only plugin,
// and connects to Argo CD.
func (s *session) up(ctx context.Context) error {
	if err := s.open(); err != nil {
		return err
	}
	err := s.bringUp(ctx)
	s.mu.Lock()
	s.upErr = err
	s.mu.Unlock()
	return err
}

func (s *session) bringUp(ctx context.Context) error {
	if err := s.run.Guard(ctx); err != nil {
		return s.failed(err)
	}
	var path []string
	for _, dir := range s.cfg.PluginPath {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return s.failed(err)
		}
		path = append(path, abs)
	}
	// The binary's certify plans its plugins the same way.
	plan, path, err := plugins.Prepare(ctx, plugins.Options{
		Subject: &s.binding, Runtime: environment.RuntimeEmbedded, Output: s.cfg.Output, PluginPath: path, Progress: s.cfg.Progress,
	})
	if err != nil {
		return s.failed(err)
	}
	base := s.cfg.PortBase
	if base == 0 {
		if s.ports, err = portrange.Take(filepath.Join(os.TempDir(), "cmp-conformance-ports"), firstPort, portSpan, portStep, portTries); err != nil {
			return s.failed(err)
		}
		base = s.ports.Base
	}
	err = s.run.Up(ctx, environment.Config{
		Runtime: environment.RuntimeEmbedded, ArgoCDVersion: s.cfg.ArgoCDVersion, PortBase: base,
		Plugins: plan.Plugins, Extensions: plan.Extensions(), PluginPath: path,
		RunID: s.rep.Metadata.RunID, LogDir: s.run.LogDir(), StateFile: s.run.StateFile(),
		Toolchain: s.cfg.Toolchain, Progress: s.cfg.Progress, ReadyTimeout: s.cfg.ReadyTimeout, WorkOnDisk: s.cfg.WorkOnDisk,
	}, plan.Bindings)
	if err != nil {
		return s.failed(err)
	}
	// The test binary's path is a temporary file: its name and flags say more.
	s.rep.Metadata.Command = fmt.Sprintf("%s (certify library, Argo CD %s)", strings.Join(append([]string{filepath.Base(os.Args[0])}, os.Args[1:]...), " "), s.run.Env.Tools.ArgoCDVersion)
	if err := s.run.Connect(ctx); err != nil {
		return s.failed(err)
	}
	s.mu.Lock()
	s.dsl = s.run.DSL
	s.mu.Unlock()
	return nil
}

// failed keeps a run error for the report.
func (s *session) failed(err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runErrs = append(s.runErrs, err)
	return err
}

// upFailed starts the failure of the spec a failed bring-up lands on.
const upFailed = "the environment did not come up: "

// takeDown takes the environment down, once: after the last check, or
// from the report's hook when Ginkgo skipped the cleanup (a suite timeout,
// a second Ctrl-C). A teardown that fails is the run's error, not a check's.
func (s *session) takeDown(ctx context.Context) {
	s.mu.Lock()
	if s.down {
		s.mu.Unlock()
		return
	}
	s.down = true
	run := s.run
	s.mu.Unlock()
	if run == nil {
		return
	}
	if err := run.Down(ctx); err != nil {
		fmt.Fprintln(s.cfg.Progress, "certify: teardown:", err)
		s.failed(fmt.Errorf("teardown: %w", err))
	}
	s.ports.Release() // only once nothing listens on them
}

// Where a run without a PortBase looks for its ports: 50 from 18080, as
// the binary's default, then the ranges --parallel's shares use.
const (
	firstPort = 18080
	portSpan  = 50
	portStep  = 100
	portTries = 20
)

// record records a check's result. A check Ginkgo failed because the
// bring-up before it failed did not run: the run's error says why.
func (s *session) record(r v1alpha1.Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.upErr != nil && r.State == v1alpha1.StateFailed && strings.HasPrefix(r.Message, upFailed) {
		r.State, r.Message = v1alpha1.StateSkipped, "not run: the environment did not come up (see the run's error)"
	}
	if r.State == v1alpha1.StateSkipped && strings.HasPrefix(r.Message, conformance.InterruptedPrefix) {
		s.interrupted = true
	}
	if s.run == nil {
		s.pending = append(s.pending, r)
		return
	}
	if err := s.run.Record(r); err != nil {
		s.runErrs = append(s.runErrs, err)
	}
}

// report is the finished run's report; nil when nothing ran.
func (s *session) report() *v1alpha1.ConformanceReport {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.finished {
		return nil
	}
	return s.rep
}

// finish takes the environment down if it still runs and writes the report,
// once; later calls return the first outcome. A run that never started
// (nothing to run, a dry run) writes nothing.
func (s *session) finish(ctx context.Context) (int, error) {
	s.takeDown(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished || s.run == nil {
		return s.code, s.err
	}
	s.finished = true
	s.rep.Interrupted = s.rep.Interrupted || s.interrupted
	s.code, s.err = s.run.Finish(errors.Join(s.runErrs...), false)
	return s.code, s.err
}
