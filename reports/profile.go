package reports

import "github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"

// SuiteProfilePrefix starts the names of SuiteProfile's phases; a parallel
// run keeps each share's under the share's name.
const SuiteProfilePrefix = "suite: "

// SuiteProfile says where one process's suite time went: the checks' own
// time, their specs' set-up (a binding's Argo CD settings) and clean-up
// (applications deleted, settings restored), and the rest (Ginkgo, and
// what runs between specs). Self-test rows count as checks: they are.
func SuiteProfile(suiteSeconds float64, results []v1alpha1.Result, selfTests []v1alpha1.SelfTestResult) []v1alpha1.Phase {
	var checks, setup, cleanup float64
	for _, r := range results {
		checks, setup, cleanup = checks+r.DurationSeconds, setup+r.SetupSeconds, cleanup+r.CleanupSeconds
	}
	for _, r := range selfTests {
		checks, setup, cleanup = checks+r.DurationSeconds, setup+r.SetupSeconds, cleanup+r.CleanupSeconds
	}
	if suiteSeconds <= 0 || checks+setup+cleanup == 0 {
		return nil
	}
	return []v1alpha1.Phase{
		{Name: SuiteProfilePrefix + "checks' own time", Seconds: checks},
		{Name: SuiteProfilePrefix + "set-up before checks", Seconds: setup},
		{Name: SuiteProfilePrefix + "clean-up after checks", Seconds: cleanup},
		{Name: SuiteProfilePrefix + "the rest (between specs)", Seconds: max(suiteSeconds-checks-setup-cleanup, 0)},
	}
}
