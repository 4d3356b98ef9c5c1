package reports

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/cmp-conformance/cmp-conformance/internal/text"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// selfTestSuiteName names the JUnit <testsuite> of the self-test results.
const selfTestSuiteName = suiteName + "-selftest"

// SelfTestAgrees reports whether a check that ended in observed did what a
// self-test expected of it: failed when expected is "fail", passed when it is
// "pass". A skipped or not-supported check agrees with neither: it proved
// nothing about the witness.
func SelfTestAgrees(expected string, observed v1alpha1.State) bool {
	switch expected {
	case v1alpha1.ExpectFail:
		return observed == v1alpha1.StateFailed
	case v1alpha1.ExpectPass:
		return observed == v1alpha1.StatePassed
	}
	return false
}

// finalizeSelfTest sorts r.SelfTest by check then witness (stably, keeping an
// upgrade run's hop order) and tallies it. A
// result recorded as OK whose observed state contradicts its expectation is
// marked not OK, so a report cannot claim a proof it does not hold; OK is
// never turned from false to true, except on a result of a Provisional check
// that is not judged (see judgeProvisional). It returns nil when there are
// no results.
func finalizeSelfTest(r *v1alpha1.ConformanceReport) *v1alpha1.SelfTestSummary {
	if len(r.SelfTest) == 0 {
		return nil
	}
	slices.SortStableFunc(r.SelfTest, func(a, b v1alpha1.SelfTestResult) int {
		return cmp.Or(cmp.Compare(a.CheckID, b.CheckID), cmp.Compare(a.Witness, b.Witness))
	})
	sum := &v1alpha1.SelfTestSummary{}
	witnesses := map[string]bool{}
	proven := map[string]bool{}
	// The reference plugins' result of each check, by ID and hop. A check
	// that fails on the reference plugins too (a Provisional divergence)
	// proves nothing by failing against a witness.
	reference := map[string]v1alpha1.Result{}
	for _, res := range r.Results {
		reference[res.ID+"\x00"+res.Hop] = res
	}
	for i := range r.SelfTest {
		st := &r.SelfTest[i]
		key := st.CheckID + "\x00" + st.Hop
		ref, known := reference[key]
		witnesses[st.Witness] = true
		if st.Provisional {
			switch judgeProvisional(st, ref, known) {
			case divergenceHolds:
				sum.Unjudged++
			case divergenceUnknown:
				sum.UnknownDivergence++
			case divergenceGone:
				if gone := withHop(st.CheckID, st.Hop); !slices.Contains(sum.DivergencesGone, gone) {
					sum.DivergencesGone = append(sum.DivergencesGone, gone)
				}
			}
		} else {
			correctOK(st)
		}
		switch {
		case !st.OK:
			sum.Mismatches++
		case st.Unjudged != "":
			// Not judged: proves nothing.
		case st.Expected == v1alpha1.ExpectFail && !(known && ref.State == v1alpha1.StateFailed):
			proven[st.CheckID] = true
		}
	}
	sum.Witnesses = len(witnesses)
	sum.ChecksProven = len(proven)
	return sum
}

// correctOK marks a result recorded as OK whose observed state contradicts
// its expectation as not OK, and says why.
func correctOK(st *v1alpha1.SelfTestResult) {
	if st.OK && !SelfTestAgrees(st.Expected, st.Observed) {
		st.OK = false
		why := fmt.Sprintf("recorded as ok, but observed %s where %q was expected", cmp.Or(string(st.Observed), "nothing"), st.Expected)
		st.Message = strings.Join(slices.DeleteFunc([]string{why, st.Message}, func(s string) bool { return s == "" }), ": ")
	}
}

// What the reference plugins say of a Provisional check a witness ran.
type divergence int

const (
	// divergenceHolds: the reference plugins fail the check too.
	divergenceHolds divergence = iota + 1
	// divergenceUnknown: the run has no verdict of theirs on the check.
	divergenceUnknown
	// divergenceGone: they pass it: Argo CD no longer diverges.
	divergenceGone
)

// judgeProvisional decides a result of a Provisional check from the
// reference plugins' result of the same check and hop (ref, when known).
// A Provisional check fails on the reference plugins as long as Argo CD
// diverges from the documented behaviour, and a witness's declaration of it
// ("fail as with the reference", with Argo CD's own error text) can only
// describe today's Argo CD: the day upstream fixes the divergence, the
// result would disagree. So the result is judged only where the reference
// passes the check, and then only a result that did what its witness
// declares counts (a proof when it expected "fail"); any other is not
// judged: OK, with Unjudged saying why, and Disagreed keeping whether the
// result itself disagreed. Finalizing again gives the same outcome.
func judgeProvisional(st *v1alpha1.SelfTestResult, ref v1alpha1.Result, known bool) divergence {
	// What the result itself showed: as recorded, unless an earlier
	// Finalize set OK only because the result was not judged.
	if st.Disagreed {
		st.OK = false
	}
	correctOK(st)
	agreed := st.OK
	st.Unjudged, st.Disagreed = "", false
	upstream := ""
	if len(ref.Upstream) > 0 {
		upstream = " (upstream: " + strings.Join(ref.Upstream, ", ") + ")"
	}
	var d divergence
	switch {
	case known && ref.State == v1alpha1.StateFailed:
		d = divergenceHolds
		st.Unjudged = fmt.Sprintf("the reference plugins fail %s too: Argo CD still diverges%s, so no witness can show the check either way", st.CheckID, upstream)
	case known && ref.State == v1alpha1.StatePassed:
		d = divergenceGone
		if !agreed {
			st.Unjudged = fmt.Sprintf("the reference plugins pass %s now: Argo CD no longer diverges%s; but this witness no longer does what it declares: it no longer proves the check; update its witness.yaml", st.CheckID, upstream)
		}
	default:
		d = divergenceUnknown
		seen := "no result"
		if known {
			seen = "a result of " + stateWord(ref.State)
		}
		st.Unjudged = fmt.Sprintf("the reference plugins have %s for %s in this run: whether Argo CD still diverges is unknown, so the result is not judged", seen, st.CheckID)
	}
	if st.Unjudged != "" {
		st.OK, st.Disagreed = true, !agreed
	}
	return d
}

// selfTestOf returns the report's self-test summary and results, computing
// them on a copy when the report was not finalized.
func selfTestOf(r *v1alpha1.ConformanceReport) (v1alpha1.SelfTestSummary, []v1alpha1.SelfTestResult) {
	if r.Summary.SelfTest != nil {
		return *r.Summary.SelfTest, r.SelfTest
	}
	c := *r
	c.SelfTest = slices.Clone(r.SelfTest)
	if s := finalizeSelfTest(&c); s != nil {
		return *s, c.SelfTest
	}
	return v1alpha1.SelfTestSummary{}, c.SelfTest
}

// writeSelfTest renders the self-test section of summary.md; it writes
// nothing for a run that was not in self-test mode.
func writeSelfTest(b *strings.Builder, r *v1alpha1.ConformanceReport) {
	if len(r.SelfTest) == 0 {
		return
	}
	s, rows := selfTestOf(r)
	b.WriteString("## Self-test against broken witnesses\n\n")
	fmt.Fprintf(b, "%d checks proven to fail against %d witnesses; %d mismatches\n\n", s.ChecksProven, s.Witnesses, s.Mismatches)
	writeProvisionalSelfTest(b, r, s, rows)
	hops := anyHop(rows, func(st v1alpha1.SelfTestResult) string { return st.Hop })
	if hops {
		b.WriteString("| Check | Hop | Witness | Expected | Observed | OK |\n|---|---|---|---|---|---|\n")
	} else {
		b.WriteString("| Check | Witness | Expected | Observed | OK |\n|---|---|---|---|---|\n")
	}
	for _, st := range rows {
		ok := "NO"
		switch {
		case st.Unjudged != "" && slices.Contains(s.DivergencesGone, withHop(st.CheckID, st.Hop)):
			ok = "no longer proves it"
		case st.Unjudged != "":
			ok = "not judged"
		case st.OK:
			ok = "yes"
		}
		check := cell(st.CheckID)
		if st.Provisional {
			check += " (Provisional)"
		}
		if hops {
			check += " | " + cell(st.Hop)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", check, cell(st.Witness), cell(st.Expected),
			stateWord(st.Observed), ok)
	}
	b.WriteString("\n")
}

// writeProvisionalSelfTest says what became of the witness results of
// Provisional checks: judged where the reference plugins pass the check
// (Argo CD no longer diverges), not judged where they fail it too or have no
// verdict on it.
func writeProvisionalSelfTest(b *strings.Builder, r *v1alpha1.ConformanceReport, s v1alpha1.SelfTestSummary, rows []v1alpha1.SelfTestResult) {
	wrote := false
	for _, gone := range s.DivergencesGone {
		var proofs, stale []string
		for _, st := range rows {
			if !st.Provisional || withHop(st.CheckID, st.Hop) != gone {
				continue
			}
			switch {
			case st.Unjudged != "":
				stale = append(stale, st.Witness)
			case st.OK && st.Expected == v1alpha1.ExpectFail:
				proofs = append(proofs, st.Witness)
			}
		}
		fmt.Fprintf(b, "- **%s** (Provisional): the reference plugins pass it now: Argo CD no longer diverges; proven by %s", cell(gone), cmp.Or(strings.Join(proofs, ", "), "no witness"))
		if len(stale) > 0 {
			fmt.Fprintf(b, "; witness results that no longer fail it for their declared reason, or no longer do what their witness declares (update their witness.yaml): %s", strings.Join(stale, ", "))
		}
		b.WriteString(".\n")
		wrote = true
	}
	reference := map[string]v1alpha1.State{}
	for _, res := range r.Results {
		reference[withHop(res.ID, res.Hop)] = res.State
	}
	var diverging, unknown []string
	for _, st := range rows {
		key := withHop(st.CheckID, st.Hop)
		if !st.Provisional || st.Unjudged == "" || slices.Contains(s.DivergencesGone, key) {
			continue
		}
		if reference[key] == v1alpha1.StateFailed {
			if !slices.Contains(diverging, key) {
				diverging = append(diverging, key)
			}
		} else if !slices.Contains(unknown, key) {
			unknown = append(unknown, key)
		}
	}
	if s.Unjudged > 0 {
		fmt.Fprintf(b, "- %d witness results of Provisional checks were not judged: the reference plugins fail %s too (Argo CD still diverges), so a witness failing them proves nothing and one passing them is no mismatch; they are judged the day upstream fixes the divergence.\n",
			s.Unjudged, cell(strings.Join(diverging, ", ")))
		wrote = true
	}
	if s.UnknownDivergence > 0 {
		fmt.Fprintf(b, "- %d witness results of Provisional checks were not judged: this run has no verdict of the reference plugins on %s, so whether Argo CD still diverges is unknown.\n",
			s.UnknownDivergence, cell(strings.Join(unknown, ", ")))
		wrote = true
	}
	if wrote {
		b.WriteString("\n")
	}
}

// writeSelfTestFailures renders each mismatch under Failures and reports
// whether there was any.
func writeSelfTestFailures(b *strings.Builder, r *v1alpha1.ConformanceReport) bool {
	found := false
	_, rows := selfTestOf(r)
	for _, st := range rows {
		if st.OK {
			continue
		}
		found = true
		fmt.Fprintf(b, "### SELFTEST %s vs %s\n\n", text.FirstLine(st.CheckID), withHop(text.FirstLine(st.Witness), text.FirstLine(st.Hop)))
		fmt.Fprintf(b, "Expected to %s, observed %s.\n\n", cmp.Or(st.Expected, "?"), stateWord(st.Observed))
		fmt.Fprintf(b, "%s\n", fenced(cmp.Or(st.Message, "(no message)"), "text"))
	}
	return found
}

// junitSelfTestSuite renders the self-test results as their own suite, one
// case per result, failing where OK is false and skipped where a result of a
// Provisional check was not judged.
func junitSelfTestSuite(r *v1alpha1.ConformanceReport) junitSuite {
	suite := junitSuite{Name: selfTestSuiteName}
	total := 0.0
	for _, st := range r.SelfTest {
		total += st.DurationSeconds
		c := junitCase{
			Classname: "selftest." + st.Witness,
			Name:      fmt.Sprintf("%s expected to %s", junitID(st.CheckID, st.Hop), st.Expected),
			Time:      seconds(st.DurationSeconds),
		}
		if st.Unjudged != "" {
			// A Provisional check's result that was not judged: neither a
			// failure nor a pass.
			c.Skipped = &junitMessage{Message: "not judged: " + text.FirstLine(st.Unjudged),
				Body: strings.Join(slices.DeleteFunc([]string{st.Unjudged, st.Message}, func(s string) bool { return s == "" }), "\n\n")}
		} else if !st.OK {
			msg := fmt.Sprintf("expected to %s, observed %s", st.Expected, stateWord(st.Observed))
			if line := text.FirstLine(st.Message); line != "" {
				msg += ": " + line
			}
			c.Failure = &junitMessage{Message: msg, Body: st.Message}
		}
		suite.Cases = append(suite.Cases, c)
	}
	suite.Time = seconds(total)
	if !r.Metadata.Date.IsZero() {
		suite.Timestamp = r.Metadata.Date.UTC().Format("2006-01-02T15:04:05")
	}
	return suite
}
