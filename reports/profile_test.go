package reports

import (
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
