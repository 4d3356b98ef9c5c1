package docs

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
	"github.com/cmp-conformance/cmp-conformance/reports"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
	"github.com/cmp-conformance/cmp-conformance/suites/render"
)

// Benchmarks are what `make bench` measures, in the page's order; the
// Makefile's BENCHMARKS names the same (TestBenchmarksAgree).
var Benchmarks = []string{"conformance", "selftest", "certify", "render"}

// slowest is how many specs a benchmark's section lists.
const slowest = 10

// renderBenchmark is the benchmark timed by render --timings, not by a
// report.
const renderBenchmark = "render"

// Bench is what one `make bench` measured on one machine.
type Bench struct {
	Date    time.Time
	Machine string
	// Runs are the benchmarks' reports, by name.
	Runs map[string]*v1alpha1.ConformanceReport
	// Renders are the render benchmark's runs (render --timings).
	Renders []render.Timing
	// Tools are the binaries of the cache, each with its first download or
	// build time.
	Tools []toolchain.Binary
	// CIRuns is the record of clean-clone runs of make test.
	CIRuns []CIRun
}

// What each benchmark is, for the page.
var benchWhat = map[string]string{
	"conformance": "`make conformance`: the catalogue against the reference plugins (embedded runtime, plugin images as sidecars)",
	"selftest":    "`make selftest`: the catalogue against the reference plugins and every witness (embedded runtime; make test's longest step)",
	"certify":     "`cmp-conformance certify` of the plain reference plugin's image on its samples (the plugin profile)",
	"render":      "`cmp-conformance render` of the plain plugin's basic sample, its folder and its image (median of each; Bring-up is ready, Suite the render, Teardown the rest)",
}

// PerformancePage renders performance.md from one bench.
func PerformancePage(b Bench) ([]byte, error) {
	var w strings.Builder
	fmt.Fprintf(&w, `# Performance

<!-- Written only by `+"`make bench`"+` (cmp-conformance report performance), from
the reports of the runs it makes and the toolchain cache of the machine it
ran on. Do not edit by hand: run make bench again. -->

Measured %s on %s. Every run's own report holds these figures too
(report.json's timings, summary.md).

| Benchmark | What | Argo CD | Total | Bring-up | Suite | Teardown | Checks | Verdict |
|---|---|---|---|---|---|---|---|---|
`, b.Date.UTC().Format("2006-01-02 15:04 UTC"), b.Machine)
	for _, name := range Benchmarks {
		if name == renderBenchmark {
			if len(b.Renders) == 0 {
				return nil, fmt.Errorf("benchmark %s has no timings", name)
			}
			ts := b.Renders
			fmt.Fprintf(&w, "| %s | %s | %s | %s | %s | %s | %s | %d renders | %s |\n", name, benchWhat[name], ts[0].ArgoCD,
				secs(median(ts, func(t render.Timing) float64 { return t.TotalSeconds })), secs(median(ts, func(t render.Timing) float64 { return t.ReadySeconds })),
				secs(median(ts, func(t render.Timing) float64 { return t.RenderSeconds })),
				secs(median(ts, func(t render.Timing) float64 { return t.TotalSeconds - t.ReadySeconds - t.RenderSeconds })), len(ts), "rendered")
			continue
		}
		r := b.Runs[name]
		if r == nil {
			return nil, fmt.Errorf("benchmark %s has no report", name)
		}
		ran := 0
		for _, res := range r.Results {
			if res.State == v1alpha1.StatePassed || res.State == v1alpha1.StateFailed {
				ran++
			}
		}
		checks := fmt.Sprintf("%d ran", ran)
		if len(r.SelfTest) > 0 {
			checks += fmt.Sprintf(", %d witness rows", len(r.SelfTest))
		}
		fmt.Fprintf(&w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, benchWhat[name], r.Environment.ArgoCDVersion,
			secs(r.Timings.TotalSeconds), secs(r.Timings.BringUpSeconds), secs(r.Timings.SuiteSeconds), teardown(r), checks, verdict(r))
	}
	for _, name := range Benchmarks {
		if name == renderBenchmark {
			writeRenders(&w, b.Renders)
			continue
		}
		r := b.Runs[name]
		fmt.Fprintf(&w, "\n## %s\n\nPhases (bring-up, and where each suite's time went): %s.\n\n", name, phases(r))
		reports.SlowestSpecsTable(&w, reports.SlowestSpecs(r), slowest)
	}
	w.WriteString("\n## Cold builds\n\nHow long each binary of the cache took to obtain when it was first downloaded or built on this machine (a build runs beside whatever else the machine did then).\n\n| Tool | Version | Origin | Seconds | When |\n|---|---|---|---|---|\n")
	tools := slices.Clone(b.Tools)
	slices.SortFunc(tools, func(a, b toolchain.Binary) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Version, b.Version))
	})
	total := 0.0
	for _, t := range tools {
		fmt.Fprintf(&w, "| %s | %s | %s | %.0f | %s |\n", t.Name, t.Version, t.Origin, t.ObtainSeconds, t.ObtainedAt.UTC().Format("2006-01-02"))
		total += t.ObtainSeconds
	}
	fmt.Fprintf(&w, "\nSummed: %.0f s (%s). Each is its build's wall clock beside whatever else the machine did then (a build started beside a run, or niced, takes longer), so the sum is what a cold machine's tool builds cost at most when they overlapped, and about that when they ran one after another.\n", total, time.Duration(total*float64(time.Second)).Round(time.Second))
	w.WriteString(CIRunsSection(b.CIRuns))
	return []byte(w.String()), nil
}

// writeRenders is the render section: each kind of plugin's runs.
func writeRenders(w *strings.Builder, ts []render.Timing) {
	w.WriteString("\n## render\n\nEach run a new process, the binaries cached: ready is the version's plan, the repo-server and the plugin up; render the sample committed and generated; total from the command's start to the end of its teardown.\n\n| Plugin | Runs | Total (median, max) | Ready (median) | Render (median) |\n|---|---|---|---|---|\n")
	for _, kind := range []string{"folder", "image"} {
		var of []render.Timing
		for _, t := range ts {
			if t.Plugin == kind {
				of = append(of, t)
			}
		}
		if len(of) == 0 {
			continue
		}
		total := func(t render.Timing) float64 { return t.TotalSeconds }
		fmt.Fprintf(w, "| %s | %d | %s, %s | %s | %s |\n", kind, len(of), secs(median(of, total)), secs(slices.Max(values(of, total))),
			secs(median(of, func(t render.Timing) float64 { return t.ReadySeconds })), secs(median(of, func(t render.Timing) float64 { return t.RenderSeconds })))
	}
}

func values(ts []render.Timing, f func(render.Timing) float64) []float64 {
	out := make([]float64, len(ts))
	for i, t := range ts {
		out[i] = f(t)
	}
	return out
}

// median of f over ts (the lower middle of an even count).
func median(ts []render.Timing, f func(render.Timing) float64) float64 {
	v := values(ts, f)
	slices.Sort(v)
	return v[(len(v)-1)/2]
}

func secs(s float64) string { return fmt.Sprintf("%.1f s", s) }

// teardown is r's teardown phase; for a parallel run, the longest of its
// shares' ("—" when the report does not say).
func teardown(r *v1alpha1.ConformanceReport) string {
	if t := phase(r, "teardown"); t > 0 {
		return secs(t)
	}
	longest := -1.0
	for _, p := range r.Timings.Phases {
		if strings.HasPrefix(p.Name, "share ") && strings.HasSuffix(p.Name, ": teardown") {
			longest = max(longest, p.Seconds)
		}
	}
	if longest < 0 {
		return "—"
	}
	return secs(longest)
}

// phase is the seconds of r's phase name (0 when absent).
func phase(r *v1alpha1.ConformanceReport, name string) float64 {
	for _, p := range r.Timings.Phases {
		if p.Name == name {
			return p.Seconds
		}
	}
	return 0
}

// phases lists r's phases but the teardown's.
func phases(r *v1alpha1.ConformanceReport) string {
	var out []string
	for _, p := range r.Timings.Phases {
		if p.Name != "teardown" {
			out = append(out, fmt.Sprintf("%s %.1f s", p.Name, p.Seconds))
		}
	}
	if len(out) == 0 {
		return "not recorded"
	}
	return strings.Join(out, ", ")
}

func verdict(r *v1alpha1.ConformanceReport) string {
	if c := r.Certification; c != nil {
		return c.Level
	}
	if st := r.Summary.SelfTest; st != nil {
		return fmt.Sprintf("%s (%d checks proven against %d witnesses, %d mismatches)", r.Summary.Verdict, st.ChecksProven, st.Witnesses, st.Mismatches)
	}
	return r.Summary.Verdict
}
