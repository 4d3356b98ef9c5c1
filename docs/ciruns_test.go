package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCIRunsSection(t *testing.T) {
	runs := []CIRun{
		{Date: "2026-11-25", Commit: "a1", By: "landing CI", Result: "passed", Seconds: 3000},
		{Date: "2026-11-25", Commit: "b2", By: "session clean clone", Result: "failed", Why: "a flake, root cause fixed in c3"},
		{Date: "2026-11-26", Commit: "c3", By: "landing CI", Result: "passed", Seconds: 2207},
		{Date: "2026-11-26", Commit: "d4", By: "landing CI", Result: "passed", Seconds: 1800},
	}
	if got := Streak(runs); got != 2 {
		t.Errorf("Streak = %d, want 2 (the red run ends the count)", got)
	}
	sec := CIRunsSection(runs)
	for _, want := range []string{"**2 consecutive green runs**", "| 2026-11-25 | b2 | session clean clone | failed | — | a flake, root cause fixed in c3 |", "| c3 | landing CI | passed | 36m47s |"} {
		if !strings.Contains(sec, want) {
			t.Errorf("the section lacks %q:\n%s", want, sec)
		}
	}
	bench := "# Performance\n\ntable\n\n## Cold builds\n\nrows\n"
	page := WithCIRuns([]byte(bench), sec)
	if !strings.HasPrefix(string(page), bench) || !strings.HasSuffix(string(page), sec) {
		t.Errorf("a page without the section does not end with it:\n%s", page)
	}
	again := WithCIRuns(page, CIRunsSection(runs[:3]))
	if strings.Count(string(again), ciRunsHeading) != 1 || !strings.Contains(string(again), "**1 consecutive green runs**") || !strings.HasPrefix(string(again), bench) {
		t.Errorf("the section was not replaced in place:\n%s", again)
	}
	after := WithCIRuns([]byte(bench+sec+"\n## Later\n\nkept\n"), CIRunsSection(runs[:1]))
	if !strings.HasSuffix(string(after), "\n## Later\n\nkept\n") {
		t.Errorf("a section after the runs' was lost:\n%s", after)
	}
}

func TestReadCIRunsRefusesWhatCannotBeCounted(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"no date":        `{"runs":[{"commit":"a1","result":"passed"}]}`,
		"unknown result": `{"runs":[{"date":"2026-11-26","commit":"a1","result":"green"}]}`,
		"failed no why":  `{"runs":[{"date":"2026-11-26","commit":"a1","result":"failed"}]}`,
	} {
		p := filepath.Join(dir, "r.json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadCIRuns(p); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := ReadCIRuns("ci-runs.json"); err != nil {
		t.Errorf("the record: %v", err)
	}
}
