package certify

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

// Nothing is written for a run that never started (a dry run, every check
// filtered out), and what is recorded before the bring-up is kept.
func TestSessionWritesOnlyOnceItStarted(t *testing.T) {
	out := t.TempDir()
	s, err := newSession(Config{Output: out, Progress: io.Discard}, conformance.Binding{Name: "certify"}, "")
	if err != nil {
		t.Fatal(err)
	}
	s.record(v1alpha1.Result{Level: v1alpha1.LevelCore, Area: "plugin", Title: "t", ID: "PLUG-001", State: v1alpha1.StateSkipped, Message: "not selected by the label filter"})
	if _, err := s.finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "reports")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a run that never started wrote %s (%v)", filepath.Join(out, "reports"), err)
	}
	s, _ = newSession(Config{Output: out, Progress: io.Discard}, conformance.Binding{Name: "certify"}, "PLUG-002")
	s.record(v1alpha1.Result{Level: v1alpha1.LevelCore, Area: "plugin", Title: "t", ID: "PLUG-001", State: v1alpha1.StateSkipped, Message: "not selected by the label filter"})
	if err := s.open(); err != nil {
		t.Fatal(err)
	}
	s.upErr = errors.New("no argocd")
	s.runErrs = append(s.runErrs, s.upErr)
	s.record(v1alpha1.Result{Level: v1alpha1.LevelCore, Area: "plugin", Title: "t", ID: "PLUG-002", State: v1alpha1.StateFailed, Message: upFailed + "no argocd\n(at x.go:1)"})
	s.record(v1alpha1.Result{Level: v1alpha1.LevelCore, Area: "plugin", Title: "t", ID: "PLUG-003", State: v1alpha1.StateSkipped, Message: conformance.InterruptedPrefix + " (ctrl-c)"})
	if _, err := s.finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	rep := s.rep
	if len(rep.Results) != 3 {
		t.Fatalf("%d results, want the one recorded before the bring-up too", len(rep.Results))
	}
	for _, r := range rep.Results {
		if r.ID == "PLUG-002" && r.State != v1alpha1.StateSkipped {
			t.Errorf("PLUG-002 is %s: a failed bring-up is not the check's failure", r.State)
		}
	}
	if !rep.Interrupted || rep.Error == "" || rep.Metadata.LabelFilter != "PLUG-002" {
		t.Errorf("interrupted %v, error %q, label filter %q", rep.Interrupted, rep.Error, rep.Metadata.LabelFilter)
	}
	if _, err := os.Stat(filepath.Join(out, "reports", "latest")); err != nil {
		t.Errorf("no latest report: %v", err)
	}
}
