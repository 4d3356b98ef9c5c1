package reports

import (
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

func TestSuiteProfileSplitsTheSuite(t *testing.T) {
	results := []v1alpha1.Result{{DurationSeconds: 10, SetupSeconds: 4, CleanupSeconds: 2}, {DurationSeconds: 5, CleanupSeconds: 1}}
	selfTests := []v1alpha1.SelfTestResult{{DurationSeconds: 20, CleanupSeconds: 3}}
	got := SuiteProfile(50, results, selfTests)
	want := []float64{35, 4, 6, 5}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i, p := range got {
		if p.Seconds != want[i] {
			t.Errorf("%s: %v seconds, want %v", p.Name, p.Seconds, want[i])
		}
	}
	if got := SuiteProfile(0, results, nil); got != nil {
		t.Errorf("a run without a suite has no profile: %v", got)
	}
	if got := SuiteProfile(30, nil, nil); got != nil {
		t.Errorf("a suite without results has no profile: %v", got)
	}
}

// The summary lists the slowest specs by their whole time, a witness row's
// set-up and clean-up included, and says what each part was; a skipped
// check is not listed.
func TestSummaryListsTheSlowestSpecs(t *testing.T) {
	r := &v1alpha1.ConformanceReport{
		Results: []v1alpha1.Result{{ID: "FAST-001", DurationSeconds: 1}, {ID: "SLOW-001", DurationSeconds: 30, CleanupSeconds: 2},
			{ID: "SKIP-001", State: v1alpha1.StateSkipped}},
		SelfTest: []v1alpha1.SelfTestResult{{CheckID: "FAST-001", Witness: "broken/w", DurationSeconds: 20, SetupSeconds: 12, CleanupSeconds: 1}},
	}
	md := renderSummary(r)
	i := strings.Index(md, "Slowest specs (of 3)")
	if i < 0 {
		t.Fatalf("no slowest specs in:\n%s", md)
	}
	rows := strings.Split(md[i:], "\n")[4:7]
	want := []string{"| FAST-001 | broken/w | 20.00 | 12.00 | 1.00 | 33.00 |", "| SLOW-001 | the run's subjects | 30.00 | 0.00 | 2.00 | 32.00 |", "| FAST-001 | the run's subjects | 1.00 | 0.00 | 0.00 | 1.00 |"}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
}
