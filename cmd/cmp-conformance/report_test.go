package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmp-conformance/cmp-conformance/reports"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

func diffReport(t *testing.T, version string, state v1alpha1.State) string {
	t.Helper()
	r := &v1alpha1.ConformanceReport{
		Metadata:    v1alpha1.Metadata{RunID: "run-" + version, Date: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)},
		Environment: v1alpha1.Environment{Runtime: "embedded", ArgoCDVersion: version, KubernetesVersion: "v1.34.0"},
		Results: []v1alpha1.Result{{ID: "SMOKE-001", Title: "t", Area: "smoke", Level: v1alpha1.LevelCore, State: state,
			StartedAt: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)}},
	}
	reports.Finalize(r)
	dir := filepath.Join(t.TempDir(), version)
	if err := reports.Write(dir, r); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runReport(args ...string) error {
	cmd := reportCommand()
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	return cmd.Execute()
}

func TestReportDiffExitCodes(t *testing.T) {
	base := diffReport(t, "v3.5.7", v1alpha1.StatePassed)
	same := diffReport(t, "v3.6.0", v1alpha1.StatePassed)
	worse := diffReport(t, "v3.6.1", v1alpha1.StateFailed)
	if err := runReport("diff", base, same); err != nil {
		t.Errorf("diff without regression = %v, want nil", err)
	}
	var ee exitError
	if err := runReport("diff", "--format", "json", base, worse); !errors.As(err, &ee) || ee.code != 1 {
		t.Errorf("diff with a regression = %v, want exit 1", err)
	}
	// Bad input is an error main turns into exit 2, never exit 1.
	truncated := filepath.Join(t.TempDir(), "report.json")
	data, _ := os.ReadFile(filepath.Join(base, reports.ReportJSON))
	if err := os.WriteFile(truncated, data[:100], 0o644); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"truncated":  {"diff", base, truncated},
		"bad format": {"diff", "--format", "html", base, same},
	} {
		err := runReport(args...)
		if err == nil || errors.As(err, &ee) {
			t.Errorf("%s: err = %v, want a usage error (exit 2)", name, err)
		}
	}
	if err := runReport("validate", base, same); err != nil {
		t.Errorf("validate of written reports = %v", err)
	}
	if err := runReport("validate", truncated); !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(truncated, "report.json") {
		t.Errorf("validate of a truncated report = %v, want exit 1", err)
	}
}

// TestReportMergeAndDiffCells: merge writes the matrix and exits with its
// worst cell's status; diff compares cells of it, and matrices cell by
// cell; a report against a matrix is bad input.
func TestReportMergeAndDiffCells(t *testing.T) {
	old := diffReport(t, "v3.6.0", v1alpha1.StatePassed)
	cur := diffReport(t, "v3.6.1", v1alpha1.StateFailed)
	out := filepath.Join(t.TempDir(), "merged")
	var ee exitError
	if err := runReport("merge", "--output", out, old, cur); !errors.As(err, &ee) || ee.code != 1 {
		t.Fatalf("merge with a failed cell = %v, want exit 1", err)
	}
	for _, f := range []string{reports.MatrixJSON, reports.SummaryMD, "report.html"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("merge wrote no %s: %v", f, err)
		}
	}
	if err := runReport("diff", out+"#v3.6.0/embedded", out+"#v3.6.1/embedded"); !errors.As(err, &ee) || ee.code != 1 {
		t.Errorf("the failed cell against its baseline = %v, want exit 1 (a regression)", err)
	}
	if err := runReport("diff", out, out); err != nil {
		t.Errorf("a matrix against itself = %v", err)
	}
	for name, args := range map[string][]string{
		"report against matrix": {"diff", old, out},
		"unknown cell":          {"diff", out + "#v1/kind", old},
		"no output":             {"merge", old},
		"the same cell twice":   {"merge", "--output", t.TempDir(), old, old},
	} {
		if err := runReport(args...); err == nil || errors.As(err, &ee) {
			t.Errorf("%s: err = %v, want a usage error (exit 2)", name, err)
		}
	}
	if err := runReport("merge", "--output", t.TempDir(), "a="+old, "b="+old); err != nil {
		t.Errorf("the same report as two named cells = %v", err)
	}
}
