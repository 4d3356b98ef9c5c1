package parallel

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/reports"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// fakeShare writes what a share's process leaves: its results.jsonl, its
// report (unless report is nil) and logs, published as latest.
func fakeShare(t *testing.T, output, runID string, results []v1alpha1.Result, selfTests []v1alpha1.SelfTestResult, report *v1alpha1.ConformanceReport) {
	t.Helper()
	root := filepath.Join(output, "reports")
	dir := filepath.Join(root, runID)
	rec, err := reports.OpenRecorder(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if err := rec.Record(r); err != nil {
			t.Fatal(err)
		}
	}
	for _, st := range selfTests {
		if err := rec.RecordSelfTest(st); err != nil {
			t.Fatal(err)
		}
	}
	rec.Close()
	if report == nil {
		return
	}
	report.Metadata.RunID = runID
	writeTestReport(t, root, runID, *report)
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "logs", "argocd-server.log"), []byte("share log\n"), 0o644)
	if err := reports.Publish(root, runID); err != nil {
		t.Fatal(err)
	}
}

func shareReport(bringUp, suite float64) *v1alpha1.ConformanceReport {
	return &v1alpha1.ConformanceReport{
		Environment: v1alpha1.Environment{ArgoCDVersion: "v3.6.1", Runtime: "embedded", Provider: "kwok",
			Binaries: []v1alpha1.Binary{{Name: "argocd", Version: "v3.6.1"}}, Notes: []string{"kustomize note"}},
		Subject: v1alpha1.Subject{Plugins: []v1alpha1.Plugin{{Name: "plain"}}},
		Timings: v1alpha1.Timings{BringUpSeconds: bringUp, SuiteSeconds: suite, TotalSeconds: bringUp + suite + 5},
	}
}

func passed(id string) v1alpha1.Result {
	return v1alpha1.Result{ID: id, Title: id, Area: "smoke", Level: v1alpha1.LevelCore, State: v1alpha1.StatePassed, DurationSeconds: 1}
}

func TestMergeShares(t *testing.T) {
	dir := t.TempDir()
	runs := []*Child{
		{index: 0, output: filepath.Join(dir, "shares", "0"), units: []Unit{{Binding: "conformance", Check: "SMOKE-001"}, {Binding: "broken/a"}}},
		{index: 1, output: filepath.Join(dir, "shares", "1"), units: []Unit{{Binding: "conformance", Check: "SMOKE-002"}, {Binding: "conformance", Check: "SMOKE-003"}}},
	}
	fakeShare(t, runs[0].output, "r0", []v1alpha1.Result{passed("SMOKE-001")},
		[]v1alpha1.SelfTestResult{{CheckID: "SMOKE-001", Witness: "broken/a", Expected: "fail", Observed: v1alpha1.StateFailed, OK: true, DurationSeconds: 2}}, shareReport(8, 100))
	fakeShare(t, runs[1].output, "r1", []v1alpha1.Result{passed("SMOKE-002"), passed("SMOKE-003")}, nil, shareReport(11, 90))
	for _, r := range runs {
		r.report = ReadReport(filepath.Join(r.output, "reports", "latest", "report.json"))
	}

	reportDir := filepath.Join(dir, "run")
	rec, err := reports.OpenRecorder(filepath.Join(reportDir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rep := &v1alpha1.ConformanceReport{Environment: v1alpha1.Environment{Runtime: "embedded", Host: v1alpha1.Host{CPUs: 2}, Notes: []string{"parent note"}}}
	if err := Merge(rep, rec, runs, filepath.Join(reportDir, "logs")); err != nil {
		t.Fatalf("merge: %v", err)
	}
	rec.Close()
	results, selfTests, err := reports.ReadAll(filepath.Join(reportDir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range results {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"SMOKE-001", "SMOKE-002", "SMOKE-003"}) || len(selfTests) != 1 || selfTests[0].Witness != "broken/a" {
		t.Errorf("merged results %v, self-tests %+v", ids, selfTests)
	}
	if rep.Timings.BringUpSeconds != 11 {
		t.Errorf("bring-up %v, want the slowest share's 11", rep.Timings.BringUpSeconds)
	}
	if rep.Environment.ArgoCDVersion != "v3.6.1" || rep.Environment.Host.CPUs != 2 || len(rep.Environment.Binaries) != 1 || len(rep.Subject.Plugins) != 1 {
		t.Errorf("environment %+v, subject %+v", rep.Environment, rep.Subject)
	}
	notes := strings.Join(rep.Environment.Notes, "\n")
	for _, want := range []string{"parent note", "kustomize note", "2 parallel environments"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
	var phases []string
	for _, p := range rep.Timings.Phases {
		phases = append(phases, p.Name)
	}
	if !slices.Contains(phases, "share 1: bring-up") || !slices.Contains(phases, "share 0: suite") {
		t.Errorf("phases %v", phases)
	}
	if data, err := os.ReadFile(filepath.Join(reportDir, "logs", "share-1", "argocd-server.log")); err != nil || string(data) != "share log\n" {
		t.Errorf("share 1's logs under logs/share-1: %q, %v", data, err)
	}
	if target, _ := os.Readlink(filepath.Join(reportDir, "logs", "share-0")); filepath.IsAbs(target) {
		t.Errorf("logs/share-0 -> %s: want a relative link (the report folder can move)", target)
	}
	// The merged report's verdict comes from the merged rows.
	rep.Results, rep.SelfTest = results, selfTests
	reports.Finalize(rep)
	if rep.Summary.Verdict != v1alpha1.VerdictPassed || rep.Summary.Counts[v1alpha1.LevelCore].Passed != 3 {
		t.Errorf("summary %+v", rep.Summary)
	}
}

// A share that crashed, wrote no report, reported an error, or lost a unit
// makes the merge fail, naming it; the others' results are kept.
func TestMergeSharesFailures(t *testing.T) {
	for _, tt := range []struct {
		name string
		make func(t *testing.T, r *Child)
		want string
	}{
		{"no report", func(t *testing.T, r *Child) {
			fakeShare(t, r.output, "x", []v1alpha1.Result{passed("SMOKE-002")}, nil, nil)
		}, "share 1 wrote no report"},
		{"bring-up failed", func(t *testing.T, r *Child) {
			rep := shareReport(3, 0)
			rep.Error = "bring-up: creating the cluster: boom"
			fakeShare(t, r.output, "x", nil, nil, rep)
		}, "share 1: bring-up: creating the cluster: boom"},
		{"crashed", func(t *testing.T, r *Child) {
			fakeShare(t, r.output, "x", []v1alpha1.Result{passed("SMOKE-002")}, nil, shareReport(3, 1))
			r.err = errors.New("signal: killed")
		}, "share 1: signal: killed"},
		{"unit lost", func(t *testing.T, r *Child) {
			fakeShare(t, r.output, "x", []v1alpha1.Result{passed("SMOKE-002")}, nil, shareReport(3, 1))
		}, "share 1 recorded nothing for conformance SMOKE-003, broken/b"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			runs := []*Child{
				{index: 0, output: filepath.Join(dir, "0"), units: []Unit{{Binding: "conformance", Check: "SMOKE-001"}}},
				{index: 1, output: filepath.Join(dir, "1"), units: []Unit{{Binding: "conformance", Check: "SMOKE-002"}, {Binding: "conformance", Check: "SMOKE-003"}, {Binding: "broken/b"}}},
			}
			fakeShare(t, runs[0].output, "ok", []v1alpha1.Result{passed("SMOKE-001")}, nil, shareReport(5, 5))
			tt.make(t, runs[1])
			for _, r := range runs {
				r.report = ReadReport(filepath.Join(r.output, "reports", "latest", "report.json"))
			}
			rec, err := reports.OpenRecorder(filepath.Join(dir, "run", "results.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			rep := &v1alpha1.ConformanceReport{}
			err = Merge(rep, rec, runs, filepath.Join(dir, "run", "logs"))
			rec.Close()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("merge error %v, want %q", err, tt.want)
			}
			results, _, _ := reports.ReadAll(filepath.Join(dir, "run", "results.jsonl"))
			if len(results) == 0 || results[0].ID != "SMOKE-001" {
				t.Errorf("share 0's results were not kept: %+v", results)
			}
			rep.Error = err.Error()
			rep.Results = results
			reports.Finalize(rep)
			if rep.Summary.Verdict != v1alpha1.VerdictFailed {
				t.Errorf("verdict %s, want failed", rep.Summary.Verdict)
			}
		})
	}
}

// An interrupted share's missing rows are what an interrupt leaves: the
// run is incomplete, not failed.
func TestMergeSharesInterrupted(t *testing.T) {
	dir := t.TempDir()
	r := &Child{index: 0, output: filepath.Join(dir, "0"), units: []Unit{{Binding: "conformance", Check: "SMOKE-001"}, {Binding: "broken/b"}}}
	rep0 := shareReport(5, 5)
	rep0.Interrupted = true
	fakeShare(t, r.output, "x", []v1alpha1.Result{passed("SMOKE-001")}, nil, rep0)
	r.report = ReadReport(filepath.Join(r.output, "reports", "latest", "report.json"))
	rec, _ := reports.OpenRecorder(filepath.Join(dir, "run", "results.jsonl"))
	defer rec.Close()
	rep := &v1alpha1.ConformanceReport{}
	if err := Merge(rep, rec, []*Child{r}, filepath.Join(dir, "run", "logs")); err != nil {
		t.Errorf("merge: %v", err)
	}
	if !rep.Interrupted {
		t.Error("the merged report is not marked interrupted")
	}
}

func TestPrefixLines(t *testing.T) {
	long := strings.Repeat("x", 3<<20)
	r, w := io.Pipe()
	go func() {
		io.WriteString(w, "first\n•\n••\n• [1.901 seconds]\n"+long+"\nlast without newline")
		w.Close()
	}()
	out, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = out
	prefixLines(r, "[share 1] ", &sync.Mutex{})
	os.Stderr = saved
	out.Close()
	data, _ := os.ReadFile(out.Name())
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 3 || lines[0] != "[share 1] first" || lines[1] != "[share 1] "+long || lines[2] != "[share 1] last without newline" {
		t.Errorf("%d lines; first %q, last %q", len(lines), lines[0], lines[len(lines)-1])
	}
}

type exitCode int

func (e exitCode) Error() string { return "exit" }
func (e exitCode) ExitCode() int { return int(e) }

func TestShareError(t *testing.T) {
	for _, tt := range []struct {
		err      error
		reported bool
		wantNil  bool
	}{
		{err: nil, reported: true, wantNil: true},
		{err: exitCode(1), reported: true, wantNil: true},
		{err: exitCode(3), reported: true, wantNil: true}, // partial: a label filter
		{err: exitCode(3), reported: false},
		{err: exitCode(2), reported: true},
		{err: errors.New("killed"), reported: true},
	} {
		if got := shareError(tt.err, tt.reported); (got == nil) != tt.wantNil {
			t.Errorf("shareError(%v, reported %t) = %v, want nil %t", tt.err, tt.reported, got, tt.wantNil)
		}
	}
}
