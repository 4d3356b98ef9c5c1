package reports

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

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
// never turned from false to true. It returns nil when there are no results.
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
	// A check that fails on the reference plugins too (a Provisional
	// divergence) proves nothing by failing against a witness.
	failsOnReference := map[string]bool{}
	for _, res := range r.Results {
		if res.State == v1alpha1.StateFailed {
			failsOnReference[res.ID+"\x00"+res.Hop] = true
		}
	}
	for i := range r.SelfTest {
		st := &r.SelfTest[i]
		if st.OK && !SelfTestAgrees(st.Expected, st.Observed) {
			st.OK = false
			why := fmt.Sprintf("recorded as ok, but observed %s where %q was expected", cmp.Or(string(st.Observed), "nothing"), st.Expected)
			st.Message = strings.Join(slices.DeleteFunc([]string{why, st.Message}, func(s string) bool { return s == "" }), ": ")
		}
		witnesses[st.Witness] = true
		switch {
		case !st.OK:
			sum.Mismatches++
		case st.Expected == v1alpha1.ExpectFail && !failsOnReference[st.CheckID+"\x00"+st.Hop]:
			proven[st.CheckID] = true
		}
	}
	sum.Witnesses = len(witnesses)
	sum.ChecksProven = len(proven)
	return sum
}

// selfTestSummaryOf returns the report's self-test summary, computing it on a
// copy when the report was not finalized.
func selfTestSummaryOf(r *v1alpha1.ConformanceReport) v1alpha1.SelfTestSummary {
	if r.Summary.SelfTest != nil {
		return *r.Summary.SelfTest
	}
	c := *r
	c.SelfTest = slices.Clone(r.SelfTest)
	if s := finalizeSelfTest(&c); s != nil {
		return *s
	}
	return v1alpha1.SelfTestSummary{}
}

// writeSelfTest renders the self-test section of summary.md; it writes
// nothing for a run that was not in self-test mode.
func writeSelfTest(b *strings.Builder, r *v1alpha1.ConformanceReport) {
	if len(r.SelfTest) == 0 {
		return
	}
	s := selfTestSummaryOf(r)
	b.WriteString("## Self-test against broken witnesses\n\n")
	fmt.Fprintf(b, "%d checks proven to fail against %d witnesses; %d mismatches\n\n", s.ChecksProven, s.Witnesses, s.Mismatches)
	forged := map[string]string{}
	for _, st := range r.SelfTest {
		if st.ForgedRecord != "" {
			forged[st.Witness] = st.ForgedRecord
		}
	}
	for _, w := range slices.Sorted(maps.Keys(forged)) {
		fmt.Fprintf(b, "- **%s** writes a false record of what it received instead of misbehaving as a plugin would (%s): its proofs (marked †) show the check's comparison, not that a platform at fault is caught.\n", w, cell(forged[w]))
	}
	if len(forged) > 0 {
		b.WriteString("\n")
	}
	hops := anyHop(r.SelfTest, func(st v1alpha1.SelfTestResult) string { return st.Hop })
	if hops {
		b.WriteString("| Check | Hop | Witness | Expected | Observed | OK |\n|---|---|---|---|---|---|\n")
	} else {
		b.WriteString("| Check | Witness | Expected | Observed | OK |\n|---|---|---|---|---|\n")
	}
	for _, st := range r.SelfTest {
		ok := "NO"
		if st.OK {
			ok = "yes"
		}
		check := cell(st.CheckID)
		if hops {
			check += " | " + cell(st.Hop)
		}
		if st.ForgedRecord != "" {
			ok += " †"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", check, cell(st.Witness), cell(st.Expected),
			stateWord(st.Observed), ok)
	}
	b.WriteString("\n")
}

// writeSelfTestFailures renders each mismatch under Failures and reports
// whether there was any.
func writeSelfTestFailures(b *strings.Builder, r *v1alpha1.ConformanceReport) bool {
	found := false
	for _, st := range r.SelfTest {
		if st.OK {
			continue
		}
		found = true
		fmt.Fprintf(b, "### SELFTEST %s vs %s\n\n", firstLine(st.CheckID), withHop(firstLine(st.Witness), firstLine(st.Hop)))
		fmt.Fprintf(b, "Expected to %s, observed %s.\n\n", cmp.Or(st.Expected, "?"), stateWord(st.Observed))
		fmt.Fprintf(b, "%s\n", fenced(cmp.Or(st.Message, "(no message)"), "text"))
	}
	return found
}

// junitSelfTestSuite renders the self-test results as their own suite, one
// case per result, failing where OK is false.
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
		if !st.OK {
			msg := fmt.Sprintf("expected to %s, observed %s", st.Expected, stateWord(st.Observed))
			if line := firstLine(st.Message); line != "" {
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
