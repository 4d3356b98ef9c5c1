package reports

import (
	"cmp"
	"slices"

	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// Finalize derives the parts of a report that follow from its results: it
// sorts results by ID (stably, so an upgrade run's per-hop results of one
// check stay in the order they were recorded) and self-test results by check
// then witness, fills the summary, the divergences and each upgrade hop's
// checks, and sets apiVersion and kind when unset. It is idempotent.
//
// Each per-hop result counts once in the summary, like any other result.
//
// The verdict is "failed" if the run itself failed (r.Error), any Core or
// Extended check failed, or any self-test result is not OK (a check that
// cannot fail against a witness that violates it is a defect of the suite);
// otherwise "incomplete" if the run was interrupted or
// no Core check ran (nothing was shown to conform); otherwise "partial" if
// some Core check of the profile did not run (filtered out, not supported by
// the plugin, skipped; a check that does not apply to the Argo CD version is
// not of the profile there); otherwise "passed". Summary.Reasons says why.
// Provisional checks never change the verdict: they record where released
// Argo CD departs from the spec, which is not the plugin's fault.
func Finalize(r *v1alpha1.ConformanceReport) {
	if r.APIVersion == "" {
		r.APIVersion = v1alpha1.APIVersion
	}
	if r.Kind == "" {
		r.Kind = v1alpha1.Kind
	}
	normalize(r)
	slices.SortStableFunc(r.Results, func(a, b v1alpha1.Result) int { return cmp.Compare(a.ID, b.ID) })
	foldBlocked(r)

	counts := map[v1alpha1.Level]v1alpha1.Counts{
		v1alpha1.LevelCore: {}, v1alpha1.LevelExtended: {}, v1alpha1.LevelProvisional: {},
	}
	divergences := []v1alpha1.Divergence{}
	failed := r.Error != ""
	sawCore, notRun := false, false
	for _, res := range r.Results {
		c := counts[res.Level]
		switch res.State {
		case v1alpha1.StatePassed:
			c.Passed++
		case v1alpha1.StateFailed:
			c.Failed++
		case v1alpha1.StateNotSupported:
			c.NotSupported++
		case v1alpha1.StateSkipped:
			c.Skipped++
		case v1alpha1.StateNotApplicable:
			c.NotApplicable++
		}
		counts[res.Level] = c

		switch res.Level {
		case v1alpha1.LevelCore:
			// Only a Core check that ran counts: a run whose Core checks were
			// all filtered out or skipped has shown nothing about conformance.
			sawCore = sawCore || res.State == v1alpha1.StatePassed || res.State == v1alpha1.StateFailed
			failed = failed || res.State == v1alpha1.StateFailed
			// A Core check of the profile that did not run makes a pass
			// partial; one that does not apply to this version is not of it.
			// In the plugin profile a feature the plugin does not declare is
			// its design, not a gap: its checks are listed, not held against it.
			notRun = notRun || (res.State == v1alpha1.StateSkipped && res.BlockedBy == "") || (res.State == v1alpha1.StateNotSupported && !Certifies(r.Profile)) || res.RuntimeLimited
		case v1alpha1.LevelExtended:
			failed = failed || res.State == v1alpha1.StateFailed
		case v1alpha1.LevelProvisional:
			divergences = append(divergences, v1alpha1.Divergence{
				ID:       res.ID,
				Title:    withHop(res.Title, res.Hop),
				Upstream: append([]string{}, res.Upstream...),
				State:    res.State,
				Message:  res.Message,
			})
		}
	}

	selfTest := finalizeSelfTest(r)
	failed = failed || (selfTest != nil && selfTest.Mismatches > 0)

	verdict := v1alpha1.VerdictPassed
	switch {
	case failed:
		verdict = v1alpha1.VerdictFailed
	case r.Interrupted || !sawCore:
		verdict = v1alpha1.VerdictIncomplete
	case notRun:
		verdict = v1alpha1.VerdictPartial
	}
	r.Summary = v1alpha1.Summary{Verdict: verdict, Counts: counts, Total: len(r.Results), SelfTest: selfTest}
	r.Summary.Reasons = Reasons(r)
	r.Divergences = divergences
	finalizeUpgrade(r)
	r.Certification = certification(r)
}

// notJudged starts the message of a result folded into its owner's failure.
const notJudged = "not judged: "

// foldBlocked counts one cause once: a check that failed only because what
// it needs did not hold (BlockedBy), where the check owning that failed too
// in the same hop, is not judged (skipped, saying so) rather than a second
// failure. Where the owner passed or did not run, the failure stays.
func foldBlocked(r *v1alpha1.ConformanceReport) {
	failed := map[string]bool{}
	for _, res := range r.Results {
		if res.State == v1alpha1.StateFailed && res.BlockedBy == "" {
			failed[res.ID+"\x00"+res.Hop] = true
		}
	}
	for i := range r.Results {
		res := &r.Results[i]
		if res.State == v1alpha1.StateFailed && res.BlockedBy != "" && failed[res.BlockedBy+"\x00"+res.Hop] {
			res.State = v1alpha1.StateSkipped
			res.Message = notJudged + res.BlockedBy + " failed for the same cause, and counts it: " + res.Message
		}
	}
}

// normalize replaces nil slices with empty ones so report.json carries []
// rather than null, as the schema requires.
func normalize(r *v1alpha1.ConformanceReport) {
	if r.Results == nil {
		r.Results = []v1alpha1.Result{}
	}
	if r.Environment.Binaries == nil {
		r.Environment.Binaries = []v1alpha1.Binary{}
	}
	if r.Subject.Plugins == nil {
		r.Subject.Plugins = []v1alpha1.Plugin{}
	}
	if r.Timings.Phases == nil {
		r.Timings.Phases = []v1alpha1.Phase{}
	}
}

// ExitCode is the process exit code a report implies: 0 when the verdict is
// passed, 1 when failed (or never finalized), 3 when partial or incomplete:
// nothing failed, but not every Core check ran, which a gate must not take
// for a pass. (2 is a usage error, before anything ran.)
func ExitCode(r *v1alpha1.ConformanceReport) int {
	if r == nil {
		return 1
	}
	return verdictExitCode(r.Summary.Verdict)
}

// verdictExitCode is the exit code of a verdict (ExitCode).
func verdictExitCode(verdict string) int {
	switch verdict {
	case v1alpha1.VerdictPassed:
		return 0
	case v1alpha1.VerdictPartial, v1alpha1.VerdictIncomplete:
		return 3
	}
	return 1
}
