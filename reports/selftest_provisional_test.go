package reports

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// provisionalRow is a witness result of a Provisional check, as record
// writes it: ok says the witness did what it declares (for "fail": failed,
// and for its declared reason).
func provisionalRow(check, witness, expected string, observed v1alpha1.State, ok bool, msg string) v1alpha1.SelfTestResult {
	st := selfTest(check, witness, expected, observed, ok)
	st.Provisional, st.Message = true, msg
	return st
}

// The witness rows of the Provisional check ENV-002 on the Argo CD under
// test: wFor failed for the reason its witness.yaml declares (Argo CD's own
// error text today), wOther failed with another message, wPasses passed it,
// and wGood (which need not fail it) passed it.
const (
	wFor    = "broken/fails-for-its-reason"
	wOther  = "broken/fails-otherwise"
	wPasses = "broken/passes-now"
	wGood   = "broken/unrelated"
)

func provisionalRows(check string) []v1alpha1.SelfTestResult {
	const declared = "Unable to connect to config management plugin service"
	return []v1alpha1.SelfTestResult{
		provisionalRow(check, wFor, v1alpha1.ExpectFail, v1alpha1.StateFailed, true, "rpc error: "+declared),
		provisionalRow(check, wOther, v1alpha1.ExpectFail, v1alpha1.StateFailed, false,
			"failed, but not for the reason the witness declares (its message must match /"+declared+"/): resource count 1, want 2"),
		provisionalRow(check, wPasses, v1alpha1.ExpectFail, v1alpha1.StatePassed, false, ""),
		provisionalRow(check, wGood, v1alpha1.ExpectPass, v1alpha1.StatePassed, true, ""),
	}
}

// provisionalReport is sampleReport in self-test mode, with every Core and
// Extended check passing on the reference, plus rows: ENV-001 (Provisional)
// fails on the reference (argoproj/argo-cd#8145), ENV-002 (Provisional)
// passes there.
func provisionalReport(rows ...v1alpha1.SelfTestResult) *v1alpha1.ConformanceReport {
	r := sampleReport()
	for i := range r.Results {
		if r.Results[i].Level != v1alpha1.LevelProvisional {
			r.Results[i].State, r.Results[i].Message = v1alpha1.StatePassed, ""
		}
	}
	r.SelfTest = rows
	return r
}

// finalizeTwice finalizes r, checks that finalizing again changes nothing,
// that report.json matches the schema and round-trips, and returns the
// summary.md, the self-test JUnit suite and the self-test rows by witness.
func finalizeTwice(t *testing.T, r *v1alpha1.ConformanceReport) (string, xSuite, map[string]v1alpha1.SelfTestResult) {
	t.Helper()
	Finalize(r)
	before := *r
	before.SelfTest = slices.Clone(r.SelfTest)
	before.Divergences = slices.Clone(r.Divergences)
	if r.Summary.SelfTest != nil {
		sum := *r.Summary.SelfTest
		sum.DivergencesGone = slices.Clone(sum.DivergencesGone)
		before.Summary.SelfTest = &sum
	}
	Finalize(r)
	if !reflect.DeepEqual(*r, before) {
		t.Errorf("a second Finalize changed the report:\n got %+v\nwant %+v", r.SelfTest, before.SelfTest)
	}
	dir := t.TempDir()
	if err := Write(dir, r); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, ReportJSON))
	if errs := schemaErrors(t, data); len(errs) > 0 {
		t.Errorf("report.json does not match the schema:\n%s", strings.Join(errs, "\n"))
	}
	var back v1alpha1.ConformanceReport
	if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(&back, r) {
		t.Errorf("report.json does not round-trip (%v)", err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, SummaryMD))
	xmlData, _ := os.ReadFile(filepath.Join(dir, JUnitXML))
	var s xSuites
	if err := xml.Unmarshal(xmlData, &s); err != nil || len(s.Suites) != 2 {
		t.Fatalf("junit.xml: %v, %d suites", err, len(s.Suites))
	}
	rows := map[string]v1alpha1.SelfTestResult{}
	for _, st := range r.SelfTest {
		rows[st.Witness+" "+st.Hop] = st
	}
	return string(md), s.Suites[1], rows
}

func wantSummary(t *testing.T, r *v1alpha1.ConformanceReport, want v1alpha1.SelfTestSummary) {
	t.Helper()
	if got := r.Summary.SelfTest; got == nil || !reflect.DeepEqual(*got, want) {
		t.Errorf("summary.selfTest = %+v, want %+v", got, want)
	}
}

func wantInMarkdown(t *testing.T, md string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(md, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}
}

// A fixed Argo CD replayed: the reference passes the Provisional ENV-002,
// so its divergence is gone. No row is a mismatch, whatever its witness's
// (now stale) declaration; only the row that failed for its declared
// reason proves the check, and the rows that no longer do so are listed.
func TestProvisionalDivergenceGone(t *testing.T) {
	r := provisionalReport(provisionalRows("ENV-002")...)
	md, suite, rows := finalizeTwice(t, r)
	wantSummary(t, r, v1alpha1.SelfTestSummary{Witnesses: 4, ChecksProven: 1, DivergencesGone: []string{"ENV-002"}})
	if r.Summary.Verdict != v1alpha1.VerdictPassed {
		t.Errorf("verdict = %q, want passed: an upstream fix must not break the self-test", r.Summary.Verdict)
	}
	if st := rows[wFor+" "]; !st.OK || st.Unjudged != "" || st.Disagreed {
		t.Errorf("the row failing for its reason = %+v, want a judged, OK proof", st)
	}
	if st := rows[wGood+" "]; !st.OK || st.Unjudged != "" {
		t.Errorf("the row expected to pass = %+v, want judged and OK", st)
	}
	for _, w := range []string{wOther, wPasses} {
		st := rows[w+" "]
		if !st.OK || !st.Disagreed || !strings.Contains(st.Unjudged, "pass ENV-002 now") || !strings.Contains(st.Unjudged, "no longer proves the check") {
			t.Errorf("%s = %+v, want OK, disagreed, and not judged: it no longer proves the check", w, st)
		}
	}
	if msg := rows[wOther+" "].Message; !strings.HasPrefix(msg, "failed, but not for the reason") {
		t.Errorf("the recorded reason was changed: %q", msg)
	}
	wantInMarkdown(t, md,
		"1 checks proven to fail against 4 witnesses; 0 mismatches\n\n",
		"- **ENV-002** (Provisional): the reference plugins pass it now: Argo CD no longer diverges; proven by "+wFor+
			"; witness results that no longer fail it for their declared reason, or no longer do what their witness declares (update their witness.yaml): "+
			wOther+", "+wPasses+".\n",
		"| ENV-002 (Provisional) | "+wFor+" | fail | failed | yes |\n",
		"| ENV-002 (Provisional) | "+wOther+" | fail | failed | no longer proves it |\n",
		"| ENV-002 (Provisional) | "+wPasses+" | fail | passed | no longer proves it |\n",
	)
	if strings.Contains(md, "SELFTEST") || strings.Contains(md, "not judged") {
		t.Errorf("summary.md lists a failure or an unjudged row:\n%s", md)
	}
	if suite.Failures != 0 || suite.Skipped != 2 || suite.Tests != 4 {
		t.Errorf("self-test JUnit suite = tests %d failures %d skipped %d, want 4 0 2", suite.Tests, suite.Failures, suite.Skipped)
	}

	// Without the row failing for its reason, nothing proves it.
	r = provisionalReport(provisionalRows("ENV-002")[1:]...)
	md, _, _ = finalizeTwice(t, r)
	wantSummary(t, r, v1alpha1.SelfTestSummary{Witnesses: 3, ChecksProven: 0, DivergencesGone: []string{"ENV-002"}})
	wantInMarkdown(t, md, "Argo CD no longer diverges; proven by no witness; witness results")
}

// While the divergence holds (the reference fails the Provisional ENV-001),
// a witness row proves nothing and disagrees with nothing, whatever it
// observed.
func TestProvisionalDivergenceHolds(t *testing.T) {
	rows := provisionalRows("ENV-001")
	// Even a row recorded as OK that its observation contradicts.
	rows = append(rows, provisionalRow("ENV-001", "broken/lying", v1alpha1.ExpectFail, v1alpha1.StateSkipped, true, "from the runner"))
	r := provisionalReport(rows...)
	md, suite, got := finalizeTwice(t, r)
	wantSummary(t, r, v1alpha1.SelfTestSummary{Witnesses: 5, ChecksProven: 0, Unjudged: 5})
	if r.Summary.Verdict != v1alpha1.VerdictPassed {
		t.Errorf("verdict = %q, want passed", r.Summary.Verdict)
	}
	for w, st := range got {
		if !st.OK || !strings.Contains(st.Unjudged, "fail ENV-001 too: Argo CD still diverges (upstream: argoproj/argo-cd#8145, https://example.com/x)") {
			t.Errorf("%s = %+v, want OK and not judged: the divergence holds", w, st)
		}
		if wantDisagreed := w != wFor+" " && w != wGood+" "; st.Disagreed != wantDisagreed {
			t.Errorf("%s: disagreed = %v, want %v", w, st.Disagreed, wantDisagreed)
		}
	}
	if msg := got["broken/lying "].Message; msg != `recorded as ok, but observed skipped where "fail" was expected: from the runner` {
		t.Errorf("the contradicted row's message = %q", msg)
	}
	wantInMarkdown(t, md,
		"0 checks proven to fail against 5 witnesses; 0 mismatches\n\n",
		"- 5 witness results of Provisional checks were not judged: the reference plugins fail ENV-001 too (Argo CD still diverges)",
		"| ENV-001 (Provisional) | "+wFor+" | fail | failed | not judged |\n",
		"| ENV-001 (Provisional) | "+wPasses+" | fail | passed | not judged |\n",
	)
	if strings.Contains(md, "SELFTEST") || strings.Contains(md, "no longer diverges") {
		t.Errorf("summary.md lists a failure or a gone divergence:\n%s", md)
	}
	if suite.Failures != 0 || suite.Skipped != 5 {
		t.Errorf("self-test JUnit suite = failures %d skipped %d, want 0 5", suite.Failures, suite.Skipped)
	}
}

// Without the reference's result of the check (filtered out, or skipped),
// whether Argo CD still diverges is unknown: no row is judged.
func TestProvisionalDivergenceUnknown(t *testing.T) {
	for _, tt := range []struct {
		name  string
		state v1alpha1.State // "": no reference result at all
		seen  string
	}{
		{"no reference result", "", "have no result for PROV-009"},
		{"reference skipped", v1alpha1.StateSkipped, "have a result of skipped for PROV-009"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := provisionalReport(provisionalRows("PROV-009")...)
			if tt.state != "" {
				r.Results = append(r.Results, v1alpha1.Result{ID: "PROV-009", Area: "x", Level: v1alpha1.LevelProvisional, State: tt.state})
			}
			md, _, rows := finalizeTwice(t, r)
			wantSummary(t, r, v1alpha1.SelfTestSummary{Witnesses: 4, UnknownDivergence: 4})
			for w, st := range rows {
				if !st.OK || !strings.Contains(st.Unjudged, tt.seen) || !strings.Contains(st.Unjudged, "whether Argo CD still diverges is unknown") {
					t.Errorf("%s = %+v, want OK and not judged: the divergence is unknown", w, st)
				}
			}
			wantInMarkdown(t, md, "- 4 witness results of Provisional checks were not judged: this run has no verdict of the reference plugins on PROV-009, so whether Argo CD still diverges is unknown.\n")
		})
	}
}

// Rows that are not of a Provisional check keep their verdict: a mismatch
// stays one whatever the reference did, and OK is never turned true.
func TestNonProvisionalMismatchStays(t *testing.T) {
	for _, ref := range []v1alpha1.State{v1alpha1.StatePassed, v1alpha1.StateFailed} {
		t.Run(string(ref), func(t *testing.T) {
			r := provisionalReport(
				selfTest("GEN-001", wOther, v1alpha1.ExpectFail, v1alpha1.StateFailed, false),
				selfTest("GEN-001", wPasses, v1alpha1.ExpectFail, v1alpha1.StatePassed, false),
				provisionalRow("ENV-001", wFor, v1alpha1.ExpectFail, v1alpha1.StateFailed, true, ""),
			)
			r.Results[0].State = ref // GEN-001 (Core) on the reference
			Finalize(r)
			if s := r.Summary.SelfTest; s.Mismatches != 2 || s.ChecksProven != 0 || s.Unjudged != 1 {
				t.Errorf("summary.selfTest = %+v, want 2 mismatches, 0 proven, 1 unjudged", *s)
			}
			for _, st := range r.SelfTest {
				if st.CheckID == "GEN-001" && (st.OK || st.Unjudged != "" || st.Disagreed) {
					t.Errorf("non-Provisional row changed: %+v", st)
				}
			}
			if r.Summary.Verdict != v1alpha1.VerdictFailed {
				t.Errorf("verdict = %q, want failed", r.Summary.Verdict)
			}
		})
	}
}

// In an upgrade run each hop is judged against the reference on that hop.
func TestProvisionalDivergencePerHop(t *testing.T) {
	const h1, h2 = "v3.0.23 -> v3.2.11", "v3.2.11 -> v3.6.1"
	r := provisionalReport()
	r.Results = append(r.Results,
		v1alpha1.Result{ID: "UPG-003", Area: "upgrade", Level: v1alpha1.LevelProvisional, State: v1alpha1.StateFailed, Hop: h1},
		v1alpha1.Result{ID: "UPG-003", Area: "upgrade", Level: v1alpha1.LevelProvisional, State: v1alpha1.StatePassed, Hop: h2})
	for _, hop := range []string{h1, h2} {
		st := provisionalRow("UPG-003", wFor, v1alpha1.ExpectFail, v1alpha1.StateFailed, true, "")
		st.Hop = hop
		r.SelfTest = append(r.SelfTest, st)
	}
	md, _, rows := finalizeTwice(t, r)
	wantSummary(t, r, v1alpha1.SelfTestSummary{Witnesses: 1, ChecksProven: 1, Unjudged: 1, DivergencesGone: []string{"UPG-003 (hop " + h2 + ")"}})
	if st := rows[wFor+" "+h1]; st.Unjudged == "" {
		t.Errorf("row on %s = %+v, want not judged", h1, st)
	}
	if st := rows[wFor+" "+h2]; st.Unjudged != "" || !st.OK {
		t.Errorf("row on %s = %+v, want a judged proof", h2, st)
	}
	wantInMarkdown(t, md,
		"- **UPG-003 (hop "+h2+")** (Provisional): the reference plugins pass it now: Argo CD no longer diverges; proven by "+wFor+".\n",
		"- 1 witness results of Provisional checks were not judged: the reference plugins fail UPG-003 (hop "+h1+") too")
}

// A report rendered without Finalize says the same.
func TestProvisionalUnfinalizedSummary(t *testing.T) {
	r := provisionalReport(provisionalRows("ENV-001")...)
	md := renderSummary(r)
	wantInMarkdown(t, md, "0 mismatches", "- 4 witness results of Provisional checks were not judged")
	if strings.Contains(md, "SELFTEST") {
		t.Errorf("unfinalized summary.md lists an unjudged row as a failure:\n%s", md)
	}
	if r.SelfTest[1].Unjudged != "" || r.SelfTest[1].OK {
		t.Error("rendering changed the report")
	}
}
