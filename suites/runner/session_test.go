package runner

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cmp-conformance/cmp-conformance/reports"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// TestSessionWithoutEnvironment: a run whose bring-up never started still
// writes a report of what was recorded, with its error, and says so in its
// exit status.
func TestSessionWithoutEnvironment(t *testing.T) {
	out := t.TempDir()
	s, err := Open(out, "embedded", reports.ProfilePlugin, "PLUG-002", time.Now(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(filepath.Dir(s.ReportDir)) != out || s.Report.Metadata.LabelFilter != "PLUG-002" {
		t.Errorf("report dir %s, label filter %q", s.ReportDir, s.Report.Metadata.LabelFilter)
	}
	if err := s.Record(v1alpha1.Result{ID: "PLUG-002", Level: v1alpha1.LevelCore, State: v1alpha1.StateSkipped, Message: "not run"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Down(context.Background()); err != nil {
		t.Errorf("Down without an environment: %v", err)
	}
	code, err := s.Finish(errors.New("bring-up: no argocd binary"), false)
	if err != nil {
		t.Fatal(err)
	}
	if code == 0 {
		t.Error("a run that did not come up exited 0")
	}
	rep, err := reports.Read(filepath.Join(s.ReportDir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Error != "bring-up: no argocd binary" || len(rep.Results) != 1 || rep.Timings.TotalSeconds <= 0 {
		t.Errorf("report: error %q, %d results, total %.3f s", rep.Error, len(rep.Results), rep.Timings.TotalSeconds)
	}
	if _, err := os.Lstat(filepath.Join(out, "reports", "latest")); err != nil {
		t.Errorf("latest not published: %v", err)
	}
}
