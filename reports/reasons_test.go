package reports

import (
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

func TestReasons(t *testing.T) {
	failedCore := leveled("PRUNE-001", v1alpha1.LevelCore, v1alpha1.StateFailed)
	failedCore.Message = "Timed out after 90.001s.\n\nexpectation ResourceGone v1/ConfigMap prune-keep: still present\n(at x.go:1)\nmore"
	failedProv := leveled("LOCAL-002", v1alpha1.LevelProvisional, v1alpha1.StateFailed)
	tests := []struct {
		name string
		r    v1alpha1.ConformanceReport
		want []string
	}{
		{name: "passed says nothing", r: v1alpha1.ConformanceReport{Results: []v1alpha1.Result{leveled("C1", v1alpha1.LevelCore, v1alpha1.StatePassed)}}},
		{name: "a failed core check, provisional left out", r: v1alpha1.ConformanceReport{Results: []v1alpha1.Result{failedCore, failedProv}},
			want: []string{"PRUNE-001 failed (Core): Timed out after 90.001s. / expectation ResourceGone v1/ConfigMap prune-keep: still present / (at x.go:1)"}},
		{name: "a mismatch with core all passed", r: v1alpha1.ConformanceReport{
			Results:  []v1alpha1.Result{leveled("C1", v1alpha1.LevelCore, v1alpha1.StatePassed)},
			SelfTest: []v1alpha1.SelfTestResult{{CheckID: "PRUNE-001", Witness: "broken/plain-pinned", Expected: "pass", Observed: v1alpha1.StateFailed, Message: "app never synced"}}},
			want: []string{"self-test PRUNE-001 vs broken/plain-pinned: expected to pass, observed failed: app never synced"}},
		{name: "what the runtime cannot run", r: v1alpha1.ConformanceReport{Results: []v1alpha1.Result{
			leveled("C1", v1alpha1.LevelCore, v1alpha1.StatePassed), runtimeLimited("SVC-008"), runtimeLimited("SVC-009"),
			leveled("OLD-1", v1alpha1.LevelCore, v1alpha1.StateNotApplicable)}},
			want: []string{"2 Core check(s) did not run (not-applicable: needs stopping and starting a plugin served over the network, which this runtime cannot give): SVC-008, SVC-009"}},
		{name: "run error", r: v1alpha1.ConformanceReport{Error: "bring-up: boom"}, want: []string{"run: bring-up: boom"}},
		{name: "nothing ran", r: v1alpha1.ConformanceReport{}, want: []string{"no Core check ran to a verdict"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			Finalize(&tt.r)
			got := Reasons(&tt.r)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Reasons = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestExcerptCuts(t *testing.T) {
	if got := excerpt(strings.Repeat("x", 1000)); len(got) > 404 || !strings.HasSuffix(got, "…") {
		t.Errorf("excerpt of 1000 chars = %d chars %q", len(got), got[len(got)-5:])
	}
	if got := excerpt("\n\n"); got != "(no message)" {
		t.Errorf("excerpt of blank = %q", got)
	}
}
