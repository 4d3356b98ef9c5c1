package docs

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
	"github.com/cmp-conformance/cmp-conformance/suites/render"
)

// TestBenchmarksAgree: make bench runs the benchmarks the page knows, and
// docs/performance.md (written only by make bench) covers every one.
func TestBenchmarksAgree(t *testing.T) {
	mk, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^BENCHMARKS = (.*)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("the Makefile defines no BENCHMARKS")
	}
	if got := strings.Fields(string(m[1])); !slices.Equal(got, Benchmarks) {
		t.Errorf("make bench runs %v, the page knows %v", got, Benchmarks)
	}
	page, err := os.ReadFile("performance.md")
	if err != nil {
		t.Fatalf("docs/performance.md: %v (run make bench)", err)
	}
	if !strings.Contains(string(page), "Written only by `make bench`") {
		t.Error("docs/performance.md does not say make bench writes it")
	}
	for _, b := range Benchmarks {
		if !strings.Contains(string(page), "\n## "+b+"\n") || !strings.Contains(string(page), "\n| "+b+" | ") {
			t.Errorf("docs/performance.md does not cover benchmark %s (run make bench)", b)
		}
	}
}

func TestPerformancePage(t *testing.T) {
	run := func(verdict string) *v1alpha1.ConformanceReport {
		r := &v1alpha1.ConformanceReport{}
		r.Environment.ArgoCDVersion = "v3.6.1"
		r.Timings = v1alpha1.Timings{BringUpSeconds: 20.1, SuiteSeconds: 205.2, TotalSeconds: 240, Phases: []v1alpha1.Phase{{Name: "cluster", Seconds: 6.5}, {Name: "teardown", Seconds: 2.5}}}
		r.Results = []v1alpha1.Result{{ID: "FAULT-001", DurationSeconds: 78.8, State: v1alpha1.StatePassed}, {ID: "SMOKE-001", DurationSeconds: 2, State: v1alpha1.StatePassed}}
		r.Summary.Verdict = verdict
		return r
	}
	b := Bench{Date: time.Date(2026, 11, 25, 18, 0, 0, 0, time.UTC), Machine: "2 CPUs", Runs: map[string]*v1alpha1.ConformanceReport{},
		Tools: []toolchain.Binary{{Name: "argocd", Version: "v3.6.1", Origin: "build", ObtainSeconds: 350}}}
	for _, n := range Benchmarks {
		b.Runs[n] = run("passed")
	}
	delete(b.Runs, renderBenchmark)
	st := b.Runs["selftest"]
	st.SelfTest = []v1alpha1.SelfTestResult{{CheckID: "PRUNE-001", Witness: "broken/plain-unprunable", DurationSeconds: 3, CleanupSeconds: 5.1}}
	st.Summary.SelfTest = &v1alpha1.SelfTestSummary{Witnesses: 1, ChecksProven: 1}
	b.Runs["conformance"].Timings.Phases = []v1alpha1.Phase{{Name: "share 0: teardown", Seconds: 1.5}, {Name: "share 1: teardown", Seconds: 2.25}}
	for i, total := range []float64{1.9, 1.5, 1.7} {
		b.Renders = append(b.Renders, render.Timing{Plugin: "folder", ArgoCD: "v3.6.1", ReadySeconds: 1, RenderSeconds: 0.5, TotalSeconds: total},
			render.Timing{Plugin: "image", ArgoCD: "v3.6.1", ReadySeconds: 1.5, RenderSeconds: 0.5, TotalSeconds: total + 0.5 + float64(i)})
	}
	page, err := PerformancePage(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Measured 2026-11-25 18:00 UTC on 2 CPUs", "| conformance | ", "| 2.2 s | 2 ran | passed |", "240.0 s | 20.1 s | 205.2 s | 2.5 s | 2 ran | passed |",
		"Phases (bring-up, and where each suite's time went): cluster 6.5 s.", "| FAULT-001 | the run's subjects | 78.80 | 0.00 | 0.00 | 78.80 |", "| PRUNE-001 | broken/plain-unprunable | 3.00 | 0.00 | 5.10 | 8.10 |",
		"| 2 ran, 1 witness rows | passed (1 checks proven against 1 witnesses, 0 mismatches) |", "| argocd | v3.6.1 | build | 350 | ", "Summed: 350 s (5m50s).",
		"| folder | 3 | 1.7 s, 1.9 s | 1.0 s | 0.5 s |", "| image | 3 | 3.0 s, 4.2 s | 1.5 s | 0.5 s |", "| 6 renders | rendered |"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
	renders := b.Renders
	b.Renders = nil
	if _, err := PerformancePage(b); err == nil {
		t.Error("a page without render timings was written")
	}
	b.Renders = renders
	delete(b.Runs, "certify")
	if _, err := PerformancePage(b); err == nil {
		t.Error("a page without the certify benchmark was written")
	}
}
