package reports

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

func timed(id string, level v1alpha1.Level, state v1alpha1.State, seconds float64) v1alpha1.Result {
	r := leveled(id, level, state)
	r.DurationSeconds = seconds
	r.Message = "message of " + id
	return r
}

func reportOf(version string, results ...v1alpha1.Result) *v1alpha1.ConformanceReport {
	r := &v1alpha1.ConformanceReport{Results: results}
	r.Environment.ArgoCDVersion = version
	r.Environment.Runtime = "embedded"
	Finalize(r)
	return r
}

func ids2(cs []Change) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return strings.Join(out, ",")
}

func TestCompareSortsEveryKindOfChange(t *testing.T) {
	const core, ext, prov = v1alpha1.LevelCore, v1alpha1.LevelExtended, v1alpha1.LevelProvisional
	const pass, fail, skip, ns = v1alpha1.StatePassed, v1alpha1.StateFailed, v1alpha1.StateSkipped, v1alpha1.StateNotSupported
	base := reportOf("v3.5.7",
		timed("A-REGRESS", core, pass, 1), timed("B-FIX", ext, fail, 1), timed("C-SAME", core, pass, 10),
		timed("D-SKIPPED", core, pass, 1), timed("E-GONE", core, pass, 1), timed("F-DIV-NEW", prov, pass, 1),
		timed("G-DIV-GONE", prov, fail, 1), timed("H-SLOW", core, pass, 10), timed("I-FAST", core, pass, 30),
		timed("J-NOISE", core, pass, 0.1), timed("K-NS", ext, fail, 1))
	next := reportOf("v3.6.1",
		timed("A-REGRESS", core, fail, 1), timed("B-FIX", ext, pass, 1), timed("C-SAME", core, pass, 12),
		timed("D-SKIPPED", core, skip, 1), timed("F-DIV-NEW", prov, fail, 1), timed("G-DIV-GONE", prov, pass, 1),
		timed("H-SLOW", core, pass, 16), timed("I-FAST", core, pass, 10), timed("J-NOISE", core, pass, 0.9),
		timed("K-NS", ext, ns, 1), timed("L-ADDED", core, pass, 1))
	d, err := Compare(base, next, DefaultDiffOptions)
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string][2]string{
		"regressions": {ids2(d.Regressions), "A-REGRESS"},
		"fixes":       {ids2(d.Fixes), "B-FIX"},
		"changed":     {ids2(d.Changed), "D-SKIPPED,K-NS"},
		"added":       {ids2(d.Added), "L-ADDED"},
		"removed":     {ids2(d.Removed), "E-GONE"},
		"appeared":    {ids2(d.DivergencesAppeared), "F-DIV-NEW"},
		"gone":        {ids2(d.DivergencesGone), "G-DIV-GONE"},
		"slower":      {ids2(d.Slower), "H-SLOW"},
		"faster":      {ids2(d.Faster), "I-FAST"},
	} {
		if got[0] != got[1] {
			t.Errorf("%s = %q, want %q", name, got[0], got[1])
		}
	}
	if !d.Regressed() {
		t.Error("Regressed() = false with a regression")
	}
	md := d.Markdown()
	for _, want := range []string{"| Argo CD | v3.5.7 | v3.6.1 |", "**Regressed**: 1 check(s)", "### Regressions (1)",
		"| A-REGRESS | Core | passed | failed | message of A-REGRESS |", "### Checks removed (1)", "| E-GONE | Core | passed | absent |",
		"### Slower (1)", "| H-SLOW | Core | 10.00s | 16.00s |"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	if _, err := json.Marshal(d); err != nil {
		t.Fatal(err)
	}
}

func TestCompareVerdictRegressionWithoutACheck(t *testing.T) {
	base := reportOf("v3.5.7", timed("A", v1alpha1.LevelCore, v1alpha1.StatePassed, 1))
	next := reportOf("v3.6.1", timed("A", v1alpha1.LevelCore, v1alpha1.StatePassed, 1))
	next.Error = "bring-up: argocd-server never answered"
	Finalize(next)
	d, err := Compare(base, next, DefaultDiffOptions)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Regressed() || !strings.Contains(d.VerdictRegression, "bring-up: argocd-server never answered") {
		t.Errorf("VerdictRegression = %q, Regressed = %v", d.VerdictRegression, d.Regressed())
	}
	same, _ := Compare(base, base, DefaultDiffOptions)
	if same.Regressed() || !strings.Contains(same.Markdown(), "No regression.") {
		t.Errorf("a report against itself regressed: %+v", same)
	}
}

func TestCompareMatchesUpgradeHopsByPosition(t *testing.T) {
	hopped := func(version, hop string, state v1alpha1.State) *v1alpha1.ConformanceReport {
		r := timed("UPG-001", v1alpha1.LevelCore, state, 1)
		r.Hop = hop
		rep := &v1alpha1.ConformanceReport{Results: []v1alpha1.Result{r},
			Upgrade: &v1alpha1.Upgrade{Hops: []v1alpha1.Hop{{Name: hop}}}}
		rep.Environment.ArgoCDVersion = version
		Finalize(rep)
		return rep
	}
	d, err := Compare(hopped("v3.5.7", "v3.4.13 -> v3.5.7", v1alpha1.StatePassed), hopped("v3.6.1", "v3.5.7 -> v3.6.1", v1alpha1.StateFailed), DefaultDiffOptions)
	if err != nil {
		t.Fatal(err)
	}
	if ids2(d.Regressions) != "UPG-001" || len(d.Added)+len(d.Removed) != 0 {
		t.Errorf("hops not matched by position: %+v", d)
	}
}

func TestCompareRefusesOtherProfiles(t *testing.T) {
	a, b := reportOf("v3.6.1"), reportOf("v3.6.1")
	b.Profile = "plugin"
	if _, err := Compare(a, b, DefaultDiffOptions); !errors.Is(err, ErrIncomparable) {
		t.Errorf("err = %v, want ErrIncomparable", err)
	}
}

func TestReadRejectsBadInput(t *testing.T) {
	r := sampleReport()
	Finalize(r)
	dir := t.TempDir()
	if err := Write(dir, r); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(dir, ReportJSON))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Read(filepath.Join(dir, ReportJSON)); err != nil {
		t.Fatalf("a written report does not read back: %v", err)
	}
	tests := []struct {
		name, data, want string
	}{
		{"truncated", string(good[:len(good)/2]), "cut short"},
		{"empty", "", "cut short"},
		{"other api version", strings.Replace(string(good), v1alpha1.APIVersion, "reports.cmp-conformance.dev/v1beta1", 1), "this cmp-conformance reads ConformanceReport of reports.cmp-conformance.dev/v1alpha1"},
		{"schema violation", strings.Replace(string(good), `"verdict": "failed"`, `"verdict": "great"`, 1), "/summary/verdict"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "report.json")
			if err := os.WriteFile(p, []byte(tt.data), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Read(p)
			if !errors.Is(err, ErrBadReport) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Read = %v, want ErrBadReport containing %q", err, tt.want)
			}
		})
	}
}

func TestWriteRefusesAnInvalidReport(t *testing.T) {
	r := sampleReport()
	Finalize(r)
	r.Summary.Verdict = "great"
	dir := t.TempDir()
	err := Write(dir, r)
	if err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("Write of an invalid report = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ReportJSON)); !os.IsNotExist(err) {
		t.Errorf("report.json written for an invalid report (stat: %v)", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.invalid.json")); err != nil {
		t.Errorf("the invalid report was not kept: %v", err)
	}
}
