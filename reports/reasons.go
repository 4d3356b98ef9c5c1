package reports

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cmp-conformance/cmp-conformance/internal/text"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// Reasons says, one line each, why a report's verdict is not "passed": the
// run's own error, each failed Core or Extended check, each self-test
// mismatch, an interruption, the Core checks that did not run, or no Core
// check run. Finalize stores them in Summary.Reasons. It is what a
// terminal or a CI log shows under the verdict, where only the tail of the
// output may be kept; summary.md has the full messages.
func Reasons(r *v1alpha1.ConformanceReport) []string {
	var out []string
	if r.Error != "" {
		out = append(out, "run: "+excerpt(r.Error))
	}
	for _, res := range r.Results {
		if res.State == v1alpha1.StateFailed && res.Level != v1alpha1.LevelProvisional {
			out = append(out, fmt.Sprintf("%s failed (%s): %s", junitID(res.ID, res.Hop), res.Level, excerpt(res.Message)))
		}
	}
	for _, st := range r.SelfTest {
		if !st.OK {
			out = append(out, fmt.Sprintf("self-test %s vs %s: expected to %s, observed %s: %s",
				junitID(st.CheckID, st.Hop), st.Witness, st.Expected, stateWord(st.Observed), excerpt(st.Message)))
		}
	}
	if r.Interrupted {
		out = append(out, "the run was interrupted before every check ran")
	}
	// Core checks that did not run, grouped by why (the filter, a feature
	// the plugin lacks, what the runtime cannot do ...), so a narrowed run says what it left out.
	notRun, order := map[string][]string{}, []string(nil)
	blocked := map[string][]string{}
	for _, res := range r.Results {
		if res.State == v1alpha1.StateSkipped && res.BlockedBy != "" {
			blocked[res.BlockedBy] = append(blocked[res.BlockedBy], junitID(res.ID, res.Hop))
			continue
		}
		// In the plugin profile a feature not declared is no reason (see
		// Finalize): the certification lists it.
		notSupported := res.State == v1alpha1.StateNotSupported && !Certifies(r.Profile)
		if res.Level == v1alpha1.LevelCore && (res.State == v1alpha1.StateSkipped || notSupported || res.RuntimeLimited) {
			why := stateWord(res.State) + ": " + text.FirstLine(res.Message)
			if _, seen := notRun[why]; !seen {
				order = append(order, why)
			}
			notRun[why] = append(notRun[why], junitID(res.ID, res.Hop))
		}
	}
	for _, why := range order {
		ids := notRun[why]
		out = append(out, fmt.Sprintf("%d Core check(s) did not run (%s): %s", len(ids), why, strings.Join(ids, ", ")))
	}
	for _, owner := range slices.Sorted(maps.Keys(blocked)) {
		out = append(out, fmt.Sprintf("%s could not judge: %s failed, and its cause is theirs too (counted once, under %s)", strings.Join(blocked[owner], ", "), owner, owner))
	}
	if r.Metadata.LabelFilter != "" && len(order) > 0 {
		out = append(out, fmt.Sprintf("the run was narrowed by --label-filter %q", r.Metadata.LabelFilter))
	}
	if len(out) == 0 && r.Summary.Verdict != v1alpha1.VerdictPassed {
		out = append(out, "no Core check ran to a verdict")
	}
	return out
}

// excerpt keeps the first few non-empty lines of a message, joined and cut
// to a length a log line can carry: Gomega's first line is often only
// "Timed out after 90s", the reason follows it.
func excerpt(s string) string {
	const maxLines, maxLen = 3, 400
	var lines []string
	for line := range strings.Lines(s) {
		if t := strings.TrimSpace(line); t != "" {
			lines = append(lines, t)
			if len(lines) == maxLines {
				break
			}
		}
	}
	out := text.Clip(strings.Join(lines, " / "), maxLen)
	if out == "" {
		return "(no message)"
	}
	return out
}
