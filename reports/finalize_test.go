package reports

import (
	"reflect"
	"slices"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

func leveled(id string, level v1alpha1.Level, state v1alpha1.State) v1alpha1.Result {
	r := result(id, state)
	r.Level = level
	return r
}

// runtimeLimited is a Core result that applies to the version but that the
// runtime cannot run.
func runtimeLimited(id string) v1alpha1.Result {
	r := leveled(id, v1alpha1.LevelCore, v1alpha1.StateNotApplicable)
	r.Message, r.RuntimeLimited = "needs stopping and starting a plugin served over the network, which this runtime cannot give", true
	return r
}

func TestFinalizeVerdict(t *testing.T) {
	const (
		core, ext, prov = v1alpha1.LevelCore, v1alpha1.LevelExtended, v1alpha1.LevelProvisional
		pass, fail      = v1alpha1.StatePassed, v1alpha1.StateFailed
	)
	tests := []struct {
		name        string
		results     []v1alpha1.Result
		err         string
		interrupted bool
		want        string
	}{
		{name: "all core and extended passed", results: []v1alpha1.Result{leveled("C1", core, pass), leveled("E1", ext, pass)}, want: "passed"},
		{name: "core failed", results: []v1alpha1.Result{leveled("C1", core, fail), leveled("C2", core, pass)}, want: "failed"},
		{name: "extended failed", results: []v1alpha1.Result{leveled("C1", core, pass), leveled("E1", ext, fail)}, want: "failed"},
		{name: "run error with passing checks", results: []v1alpha1.Result{leveled("C1", core, pass)}, err: "bring-up: kind create cluster: exit 1", want: "failed"},
		{name: "run error and no results", err: "bring-up failed", want: "failed"},
		{name: "interrupted", results: []v1alpha1.Result{leveled("C1", core, pass)}, interrupted: true, want: "incomplete"},
		{name: "failure outranks interruption", results: []v1alpha1.Result{leveled("C1", core, fail)}, interrupted: true, want: "failed"},
		{name: "no core result", results: []v1alpha1.Result{leveled("E1", ext, pass)}, want: "incomplete"},
		{name: "no results", want: "incomplete"},
		{name: "failing provisional does not fail", results: []v1alpha1.Result{leveled("C1", core, pass), leveled("P1", prov, fail)}, want: "passed"},
		{name: "provisional alone is not a core result", results: []v1alpha1.Result{leveled("P1", prov, pass)}, want: "incomplete"},
		{name: "core not-supported only: nothing ran", results: []v1alpha1.Result{leveled("C1", core, v1alpha1.StateNotSupported)}, want: "incomplete"},
		{name: "core skipped and extended passed: no core check ran", results: []v1alpha1.Result{leveled("C1", core, v1alpha1.StateSkipped), leveled("E1", ext, pass)}, want: "incomplete"},
		{name: "core skipped beside a core pass: partial", results: []v1alpha1.Result{leveled("C1", core, v1alpha1.StateSkipped), leveled("C2", core, pass)}, want: "partial"},
		{name: "core not supported beside a core pass: partial", results: []v1alpha1.Result{leveled("C1", core, v1alpha1.StateNotSupported), leveled("C2", core, pass)}, want: "partial"},
		{name: "core not applicable to the version: still passed", results: []v1alpha1.Result{leveled("C1", core, v1alpha1.StateNotApplicable), leveled("C2", core, pass)}, want: "passed"},
		{name: "core the runtime cannot run beside a core pass: partial", results: []v1alpha1.Result{runtimeLimited("C1"), leveled("C2", core, pass)}, want: "partial"},
		{name: "extended skipped: still passed", results: []v1alpha1.Result{leveled("E1", ext, v1alpha1.StateSkipped), leveled("C2", core, pass)}, want: "passed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &v1alpha1.ConformanceReport{Results: tt.results, Error: tt.err, Interrupted: tt.interrupted}
			Finalize(r)
			if r.Summary.Verdict != tt.want {
				t.Errorf("verdict = %q, want %q", r.Summary.Verdict, tt.want)
			}
			wantExit := map[string]int{"passed": 0, "failed": 1, "partial": 3, "incomplete": 3}[tt.want]
			if got := ExitCode(r); got != wantExit {
				t.Errorf("ExitCode = %d, want %d", got, wantExit)
			}
		})
	}
}

func TestFinalizeSummaryAndDivergences(t *testing.T) {
	p1 := leveled("P-2", v1alpha1.LevelProvisional, v1alpha1.StateFailed)
	p1.Upstream = []string{"argoproj/argo-cd#8145"}
	p1.Message = "env var not passed"
	p2 := leveled("P-1", v1alpha1.LevelProvisional, v1alpha1.StatePassed)
	r := &v1alpha1.ConformanceReport{Results: []v1alpha1.Result{
		leveled("C-3", v1alpha1.LevelCore, v1alpha1.StatePassed),
		p1,
		leveled("C-1", v1alpha1.LevelCore, v1alpha1.StateFailed),
		leveled("E-1", v1alpha1.LevelExtended, v1alpha1.StateNotSupported),
		p2,
		leveled("C-2", v1alpha1.LevelCore, v1alpha1.StateSkipped),
		leveled("E-2", v1alpha1.LevelExtended, v1alpha1.StatePassed),
	}}
	Finalize(r)

	if want := []string{"C-1", "C-2", "C-3", "E-1", "E-2", "P-1", "P-2"}; !slices.Equal(ids(r.Results), want) {
		t.Errorf("results order = %v, want %v", ids(r.Results), want)
	}
	wantCounts := map[v1alpha1.Level]v1alpha1.Counts{
		v1alpha1.LevelCore:        {Passed: 1, Failed: 1, Skipped: 1},
		v1alpha1.LevelExtended:    {Passed: 1, NotSupported: 1},
		v1alpha1.LevelProvisional: {Passed: 1, Failed: 1},
	}
	if !reflect.DeepEqual(r.Summary.Counts, wantCounts) {
		t.Errorf("counts = %+v, want %+v", r.Summary.Counts, wantCounts)
	}
	if r.Summary.Total != 7 {
		t.Errorf("total = %d, want 7", r.Summary.Total)
	}
	wantDiv := []v1alpha1.Divergence{
		{ID: "P-1", Title: "title P-1", Upstream: []string{}, State: v1alpha1.StatePassed},
		{ID: "P-2", Title: "title P-2", Upstream: []string{"argoproj/argo-cd#8145"}, State: v1alpha1.StateFailed, Message: "env var not passed"},
	}
	if !reflect.DeepEqual(r.Divergences, wantDiv) {
		t.Errorf("divergences =\n %+v\nwant\n %+v", r.Divergences, wantDiv)
	}
	if r.APIVersion != v1alpha1.APIVersion || r.Kind != v1alpha1.Kind {
		t.Errorf("apiVersion/kind = %q/%q", r.APIVersion, r.Kind)
	}

	// Finalize must be idempotent: the CLI may finalize a report that a
	// previous (interrupted) invocation already finalized.
	before := *r
	before.Divergences = slices.Clone(r.Divergences)
	Finalize(r)
	if !reflect.DeepEqual(*r, before) {
		t.Error("second Finalize changed the report")
	}
	// Divergence upstream must be a copy, not an alias of the result's.
	r.Divergences[1].Upstream[0] = "changed"
	if r.Results[6].Upstream[0] != "argoproj/argo-cd#8145" {
		t.Error("divergence upstream aliases the result's slice")
	}
}

func TestFinalizeNormalizesNilSlices(t *testing.T) {
	r := &v1alpha1.ConformanceReport{}
	Finalize(r)
	if r.Results == nil || r.Divergences == nil || r.Environment.Binaries == nil ||
		r.Subject.Plugins == nil || r.Timings.Phases == nil {
		t.Errorf("nil slices left after Finalize: %+v", r)
	}
	if len(r.Summary.Counts) != 3 {
		t.Errorf("counts should list all three levels, got %v", r.Summary.Counts)
	}
}

func TestExitCodeUnfinalized(t *testing.T) {
	if got := ExitCode(nil); got != 1 {
		t.Errorf("ExitCode(nil) = %d, want 1", got)
	}
	if got := ExitCode(&v1alpha1.ConformanceReport{}); got != 1 {
		t.Errorf("ExitCode(unfinalized) = %d, want 1", got)
	}
}
