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

func selfTest(check, witness, expected string, observed v1alpha1.State, ok bool) v1alpha1.SelfTestResult {
	return v1alpha1.SelfTestResult{CheckID: check, Witness: witness, Expected: expected,
		Observed: observed, OK: ok, DurationSeconds: 0.5}
}

const (
	wDrops = "broken/plain-drops-resources"
	wEnv   = "broken/ignores-env"
)

// selfTestReport is sampleReport run in self-test mode: every Core and
// Extended check passes against the reference plugin, and GEN-002 cannot
// tell the ignores-env witness from a good plugin.
func selfTestReport() *v1alpha1.ConformanceReport {
	r := sampleReport()
	for i := range r.Results {
		if r.Results[i].Level != v1alpha1.LevelProvisional {
			r.Results[i].State, r.Results[i].Message = v1alpha1.StatePassed, ""
		}
	}
	r.Environment.Notes = []string{
		"using Argo CD v3.2.11, the newest version this machine can obtain",
		"kube-apiserver from cache\nchecksum verified",
	}
	miss := selfTest("GEN-002", wEnv, v1alpha1.ExpectFail, v1alpha1.StatePassed, false)
	miss.Message = "check passed against a witness that ignores env\nsecond line"
	caught := selfTest("GEN-001", wDrops, v1alpha1.ExpectFail, v1alpha1.StateFailed, true)
	caught.Message = "rendered 0 resources, want 2"
	r.SelfTest = []v1alpha1.SelfTestResult{
		miss,
		selfTest("GEN-002", wDrops, v1alpha1.ExpectFail, v1alpha1.StateFailed, true),
		caught,
		selfTest("GEN-001", wEnv, v1alpha1.ExpectPass, v1alpha1.StatePassed, true),
	}
	return r
}

func TestSelfTestAgrees(t *testing.T) {
	for _, tt := range []struct {
		expected string
		observed v1alpha1.State
		want     bool
	}{
		{"fail", v1alpha1.StateFailed, true},
		{"fail", v1alpha1.StatePassed, false},
		{"fail", v1alpha1.StateSkipped, false},
		{"fail", v1alpha1.StateNotSupported, false},
		{"pass", v1alpha1.StatePassed, true},
		{"pass", v1alpha1.StateFailed, false},
		{"pass", v1alpha1.StateSkipped, false},
		{"", v1alpha1.StateFailed, false},
		{"failed", v1alpha1.StateFailed, false},
	} {
		if got := SelfTestAgrees(tt.expected, tt.observed); got != tt.want {
			t.Errorf("SelfTestAgrees(%q, %q) = %v, want %v", tt.expected, tt.observed, got, tt.want)
		}
	}
}

func TestFinalizeSelfTestVerdict(t *testing.T) {
	pass := []v1alpha1.Result{leveled("C1", v1alpha1.LevelCore, v1alpha1.StatePassed)}
	good := selfTest("C1", wDrops, "fail", v1alpha1.StateFailed, true)
	bad := selfTest("C1", wEnv, "fail", v1alpha1.StatePassed, false)
	tests := []struct {
		name        string
		results     []v1alpha1.Result
		selfTests   []v1alpha1.SelfTestResult
		interrupted bool
		want        string
	}{
		{name: "all ok", results: pass, selfTests: []v1alpha1.SelfTestResult{good}, want: "passed"},
		{name: "a mismatch fails a passing run", results: pass, selfTests: []v1alpha1.SelfTestResult{good, bad}, want: "failed"},
		{name: "a mismatch outranks interruption", results: pass, selfTests: []v1alpha1.SelfTestResult{bad}, interrupted: true, want: "failed"},
		{name: "a mismatch outranks no core result", selfTests: []v1alpha1.SelfTestResult{bad}, want: "failed"},
		{name: "self-test alone shows nothing conforms", selfTests: []v1alpha1.SelfTestResult{good}, want: "incomplete"},
		{name: "ok that contradicts observed", results: pass,
			selfTests: []v1alpha1.SelfTestResult{selfTest("C1", wEnv, "fail", v1alpha1.StateSkipped, true)}, want: "failed"},
		{name: "ok with unknown expectation", results: pass,
			selfTests: []v1alpha1.SelfTestResult{selfTest("C1", wEnv, "", v1alpha1.StateFailed, true)}, want: "failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &v1alpha1.ConformanceReport{Results: slices.Clone(tt.results),
				SelfTest: slices.Clone(tt.selfTests), Interrupted: tt.interrupted}
			Finalize(r)
			if r.Summary.Verdict != tt.want {
				t.Errorf("verdict = %q, want %q", r.Summary.Verdict, tt.want)
			}
		})
	}
}

// Finalize marks a recorded OK that its own observation contradicts as not
// OK, says why, and never does the reverse.
func TestFinalizeSelfTestCorrectsOK(t *testing.T) {
	lying := selfTest("C1", wDrops, "fail", v1alpha1.StatePassed, true)
	lying.Message = "from the runner"
	modest := selfTest("C2", wDrops, "fail", v1alpha1.StateFailed, false)
	modest.Message = "witness did not build"
	r := &v1alpha1.ConformanceReport{SelfTest: []v1alpha1.SelfTestResult{lying, modest}}
	Finalize(r)
	if got := r.SelfTest[0]; got.OK || !strings.Contains(got.Message, `observed passed where "fail" was expected`) ||
		!strings.HasSuffix(got.Message, ": from the runner") {
		t.Errorf("contradicted OK = %+v, want OK false with the reason prepended", got)
	}
	if got := r.SelfTest[1]; got.OK || got.Message != modest.Message {
		t.Errorf("not-OK result changed: %+v", got)
	}
	if r.Summary.SelfTest.Mismatches != 2 || r.Summary.SelfTest.ChecksProven != 0 {
		t.Errorf("summary = %+v, want 2 mismatches, 0 proven", *r.Summary.SelfTest)
	}
	msg := r.SelfTest[0].Message
	Finalize(r)
	if r.SelfTest[0].Message != msg {
		t.Errorf("second Finalize changed the message to %q", r.SelfTest[0].Message)
	}
}

func TestFinalizeSelfTestSortAndSummary(t *testing.T) {
	r := selfTestReport()
	// Two more: a proof by a second witness must not count GEN-001 twice, and
	// a check whose only OK result expected "pass" is not proven.
	r.SelfTest = append(r.SelfTest,
		selfTest("GEN-001", "broken/a-third", "fail", v1alpha1.StateFailed, true),
		selfTest("DIS-001", wDrops, "pass", v1alpha1.StatePassed, true))
	Finalize(r)
	var order []string
	for _, st := range r.SelfTest {
		order = append(order, st.CheckID+" "+st.Witness)
	}
	want := []string{
		"DIS-001 " + wDrops,
		"GEN-001 broken/a-third", "GEN-001 " + wEnv, "GEN-001 " + wDrops,
		"GEN-002 " + wEnv, "GEN-002 " + wDrops,
	}
	if !slices.Equal(order, want) {
		t.Errorf("self-test order =\n %v\nwant\n %v", order, want)
	}
	wantSum := v1alpha1.SelfTestSummary{Witnesses: 3, ChecksProven: 2, Mismatches: 1}
	if r.Summary.SelfTest == nil || !reflect.DeepEqual(*r.Summary.SelfTest, wantSum) {
		t.Errorf("summary.selfTest = %+v, want %+v", r.Summary.SelfTest, wantSum)
	}
	before := *r
	before.SelfTest = slices.Clone(r.SelfTest)
	before.Divergences = slices.Clone(r.Divergences)
	Finalize(r)
	if !reflect.DeepEqual(*r, before) {
		t.Error("second Finalize changed the report")
	}
}

func TestFinalizeNoSelfTestLeavesSummaryNil(t *testing.T) {
	r := sampleReport()
	Finalize(r)
	if r.Summary.SelfTest != nil {
		t.Errorf("summary.selfTest = %+v, want nil", r.Summary.SelfTest)
	}
	data, _ := json.Marshal(r)
	if strings.Contains(string(data), `"selfTest"`) || strings.Contains(string(data), `"notes"`) {
		t.Errorf("report without self-test or notes mentions them: %s", data)
	}
}

func TestWriteSelfTest(t *testing.T) {
	r := selfTestReport()
	Finalize(r)
	dir := t.TempDir()
	if err := Write(dir, r); err != nil {
		t.Fatal(err)
	}

	t.Run("report.json round-trips and matches the schema", func(t *testing.T) {
		data, _ := os.ReadFile(filepath.Join(dir, ReportJSON))
		var got v1alpha1.ConformanceReport
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(&got, r) {
			t.Errorf("round trip differs:\n got %+v\nwant %+v", got, *r)
		}
		if errs := schemaErrors(t, data); len(errs) > 0 {
			t.Errorf("report.json does not match the schema:\n%s", strings.Join(errs, "\n"))
		}
		if r.Summary.Verdict != v1alpha1.VerdictFailed {
			t.Errorf("verdict = %q, want failed (GEN-002 misses a witness)", r.Summary.Verdict)
		}
	})

	t.Run("summary.md", func(t *testing.T) {
		data, _ := os.ReadFile(filepath.Join(dir, SummaryMD))
		md := string(data)
		for _, want := range []string{
			"## Self-test against broken witnesses\n\n2 checks proven to fail against 2 witnesses; 1 mismatches\n\n",
			"| Check | Witness | Expected | Observed | OK |\n",
			"| GEN-001 | broken/plain-drops-resources | fail | failed | yes |\n",
			"| GEN-001 | broken/ignores-env | pass | passed | yes |\n",
			"| GEN-002 | broken/ignores-env | fail | passed | NO |\n",
			"### SELFTEST GEN-002 vs broken/ignores-env\n\nExpected to fail, observed passed.\n\n" +
				"```text\ncheck passed against a witness that ignores env\nsecond line\n```\n",
		} {
			if !strings.Contains(md, want) {
				t.Errorf("summary.md lacks %q", want)
			}
		}
		results := strings.Index(md, "## Results")
		section := strings.Index(md, "## Self-test against broken witnesses")
		divergences := strings.Index(md, "## Divergences")
		if !(results < section && section < divergences) {
			t.Errorf("self-test section at %d, want between Results (%d) and Divergences (%d)", section, results, divergences)
		}
		if strings.Contains(md, "SELFTEST GEN-001") {
			t.Error("an OK self-test result is listed under Failures")
		}
		if failures := md[strings.Index(md, "## Failures"):]; strings.Contains(failures, "None.") {
			t.Error("Failures says None. although a self-test mismatched")
		}
	})

	t.Run("junit.xml", func(t *testing.T) {
		data, _ := os.ReadFile(filepath.Join(dir, JUnitXML))
		var s xSuites
		if err := xml.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		if len(s.Suites) != 2 || s.Suites[0].Name != "cmp-conformance" || s.Suites[1].Name != "cmp-conformance-selftest" {
			t.Fatalf("suites = %+v, want cmp-conformance and cmp-conformance-selftest", s.Suites)
		}
		// 6 checks (only the failed Provisional ENV-001 is skipped) plus 4
		// self-test cases, one failing.
		st := s.Suites[1]
		if st.Tests != 4 || st.Failures != 1 || st.Skipped != 0 || st.Errors != 0 || len(st.Cases) != 4 {
			t.Errorf("self-test suite counts = %+v", st)
		}
		if s.Tests != 10 || s.Failures != 1 || s.Skipped != 1 || s.Errors != 0 {
			t.Errorf("testsuites totals = tests %d failures %d skipped %d errors %d, want 10 1 1 0",
				s.Tests, s.Failures, s.Skipped, s.Errors)
		}
		byName := map[string]xCase{}
		for _, c := range st.Cases {
			byName[c.Classname+" "+c.Name] = c
		}
		miss, ok := byName["selftest.broken/ignores-env GEN-002 expected to fail"]
		if !ok || miss.Failure == nil || miss.Time != "0.500" ||
			miss.Failure.Message != "expected to fail, observed passed: check passed against a witness that ignores env" ||
			miss.Failure.Body != "check passed against a witness that ignores env\nsecond line" {
			t.Errorf("mismatch case = %+v (found %v)", miss, ok)
		}
		if c, ok := byName["selftest.broken/ignores-env GEN-001 expected to pass"]; !ok || c.Failure != nil {
			t.Errorf("OK expect-pass case = %+v (found %v)", c, ok)
		}
		if c, ok := byName["selftest.broken/plain-drops-resources GEN-001 expected to fail"]; !ok || c.Failure != nil {
			t.Errorf("OK expect-fail case = %+v (found %v), want no failure although the check failed", c, ok)
		}
	})
}

func TestSummaryNotes(t *testing.T) {
	r := selfTestReport()
	Finalize(r)
	md := renderSummary(r)
	want := "| Binary kube-apiserver | v1.34.0, sha256 0123456789ab, from cache |\n" +
		"| Deviation kustomize | v5.8.2 used for v5.8.3: not served |\n\n" +
		"- using Argo CD v3.2.11, the newest version this machine can obtain\n" +
		"- kube-apiserver from cache\n  checksum verified\n\n## Summary"
	if !strings.Contains(md, want) {
		t.Errorf("summary.md lacks the notes under the environment table:\n%s", md)
	}

	r.Environment.Notes = nil
	if md := renderSummary(r); strings.Contains(md[:strings.Index(md, "## Summary")], "\n- ") {
		t.Error("summary.md has a bullet list without notes")
	}
	r.SelfTest = nil
	Finalize(r)
	if md := renderSummary(r); strings.Contains(md, "Self-test") {
		t.Error("summary.md has a self-test section without self-test results")
	}
}

// A report rendered without Finalize still gets a correct self-test line.
func TestSummarySelfTestUnfinalized(t *testing.T) {
	r := selfTestReport()
	md := renderSummary(r)
	if !strings.Contains(md, "2 checks proven to fail against 2 witnesses; 1 mismatches") {
		t.Errorf("unfinalized summary.md:\n%s", md)
	}
	if r.SelfTest[0].CheckID != "GEN-002" || r.Summary.SelfTest != nil {
		t.Error("rendering changed the report")
	}
}

func TestValidatorRejectsSelfTest(t *testing.T) {
	r := selfTestReport()
	Finalize(r)
	good, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if errs := schemaErrors(t, good); len(errs) > 0 {
		t.Fatalf("self-test report does not match the schema:\n%s", strings.Join(errs, "\n"))
	}
	st0 := func(m map[string]any) map[string]any { return m["selfTest"].([]any)[0].(map[string]any) }
	sum := func(m map[string]any) map[string]any {
		return m["summary"].(map[string]any)["selfTest"].(map[string]any)
	}
	tests := []struct {
		name   string
		mutate func(m map[string]any)
		want   string
	}{
		{"bad expected", func(m map[string]any) { st0(m)["expected"] = "failed" }, "value must be one of"},
		{"bad observed", func(m map[string]any) { st0(m)["observed"] = "fail" }, "value must be one of"},
		{"missing ok", func(m map[string]any) { delete(st0(m), "ok") }, `missing property 'ok'`},
		{"missing witness", func(m map[string]any) { delete(st0(m), "witness") }, `missing property 'witness'`},
		{"empty checkID", func(m map[string]any) { st0(m)["checkID"] = "" }, "minLength"},
		{"string ok", func(m map[string]any) { st0(m)["ok"] = "yes" }, "got string, want boolean"},
		{"unknown self-test field", func(m map[string]any) { st0(m)["pass"] = true }, `additional properties 'pass' not allowed`},
		{"missing mismatches", func(m map[string]any) { delete(sum(m), "mismatches") }, `missing property 'mismatches'`},
		{"negative witnesses", func(m map[string]any) { sum(m)["witnesses"] = -1 }, "minimum: got -1"},
		{"non-string note", func(m map[string]any) { m["environment"].(map[string]any)["notes"] = []any{1} }, "want string"},
		{"null self-test", func(m map[string]any) { m["selfTest"] = nil }, "got null, want"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(good, &m); err != nil {
				t.Fatal(err)
			}
			tt.mutate(m)
			bad, _ := json.Marshal(m)
			errs := schemaErrors(t, bad)
			if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, tt.want) }) {
				t.Errorf("want an error containing %q, got %v", tt.want, errs)
			}
		})
	}
}

// A self-test mismatch alone is enough to fill the Failures section.
func TestSummaryFailuresOnlySelfTest(t *testing.T) {
	r := &v1alpha1.ConformanceReport{
		Results:  []v1alpha1.Result{leveled("C1", v1alpha1.LevelCore, v1alpha1.StatePassed)},
		SelfTest: []v1alpha1.SelfTestResult{selfTest("C1", wEnv, "fail", v1alpha1.StateSkipped, false)},
	}
	Finalize(r)
	md := renderSummary(r)
	failures := md[strings.Index(md, "## Failures"):]
	want := "## Failures\n\n### SELFTEST C1 vs broken/ignores-env\n\nExpected to fail, observed skipped.\n\n```text\n(no message)\n```\n\n"
	if failures != want {
		t.Errorf("Failures section =\n%q\nwant\n%q", failures, want)
	}
}

// A check that fails on the reference too (a divergence) is not proven by
// failing against a witness.
func TestProvenExcludesChecksFailingOnTheReference(t *testing.T) {
	r := &v1alpha1.ConformanceReport{
		Results: []v1alpha1.Result{leveled("LOCAL-002", v1alpha1.LevelProvisional, v1alpha1.StateFailed), leveled("GEN-001", v1alpha1.LevelCore, v1alpha1.StatePassed)},
		SelfTest: []v1alpha1.SelfTestResult{
			{CheckID: "LOCAL-002", Witness: "broken/a", Expected: "fail", Observed: v1alpha1.StateFailed, OK: true},
			{CheckID: "GEN-001", Witness: "broken/a", Expected: "fail", Observed: v1alpha1.StateFailed, OK: true},
		}}
	Finalize(r)
	if got := r.Summary.SelfTest.ChecksProven; got != 1 {
		t.Errorf("ChecksProven = %d, want 1 (GEN-001 only)", got)
	}
}

// A Provisional check's row left unjudged reads "not judged" with why, in
// summary.md and report.html alike, never "yes".
func TestUnjudgedRowsSaySo(t *testing.T) {
	r := &v1alpha1.ConformanceReport{
		Results:  []v1alpha1.Result{leveled("ANN-008", v1alpha1.LevelProvisional, v1alpha1.StateFailed)},
		SelfTest: []v1alpha1.SelfTestResult{{CheckID: "ANN-008", Witness: "broken/dynamic-nameless", Expected: "fail", Observed: v1alpha1.StateFailed, OK: true, Provisional: true}}}
	Finalize(r)
	md := renderSummary(r)
	if want := "| ANN-008 (Provisional) | broken/dynamic-nameless | fail | failed | not judged |"; !strings.Contains(md, want) {
		t.Errorf("summary.md lacks %q:\n%s", want, md)
	}
	page, err := renderHTML(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`ANN-008 <small>(Provisional)</small>`, `>not judged</span>`, `title="the reference plugins fail ANN-008 too`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(string(page), `s-passed">yes`) {
		t.Error("report.html shows an unjudged row as proven (yes)")
	}
}
