package reports

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// cellReport is sampleReport at another Argo CD version, with GEN-001's
// state set.
func cellReport(version string, state v1alpha1.State) *v1alpha1.ConformanceReport {
	r := sampleReport()
	r.Environment.ArgoCDVersion = version
	for i := range r.Results {
		if r.Results[i].ID == "GEN-001" {
			r.Results[i].State = state
			if state == v1alpha1.StateFailed {
				r.Results[i].Message = "rendered manifests differ"
			}
		}
	}
	Finalize(r)
	return r
}

func TestMergeJoinsCellsAndDiffsThem(t *testing.T) {
	old, cur := cellReport("v3.6.0", v1alpha1.StatePassed), cellReport("v3.6.1", v1alpha1.StateFailed)
	m, err := Merge([]Cell{{Name: CellName(old), Report: old}, {Name: CellName(cur), Report: cur}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Verdict != v1alpha1.VerdictFailed || m.ExitCode() != 1 || len(m.Cells) != 2 || m.Cells[1].Name != "v3.6.1/embedded" {
		t.Fatalf("verdict %s, exit %d, cells %v", m.Verdict, m.ExitCode(), m.Cells)
	}
	partial := cellReport("v3.5.7", v1alpha1.StatePassed)
	partial.Summary.Verdict = v1alpha1.VerdictPartial
	if mixed, err := Merge([]Cell{{Name: "p", Report: partial}, {Name: "f", Report: cur}}); err != nil || mixed.Verdict != v1alpha1.VerdictFailed || mixed.ExitCode() != 1 {
		t.Errorf("a partial and a failed cell: %v, exit %d, want failed, exit 1", err, mixed.ExitCode())
	}
	summary := MatrixSummary(m)
	for _, want := range []string{"| Check | v3.6.0/embedded | v3.6.1/embedded |", "| GEN-001 | passed | failed |", "### v3.6.1/embedded",
		"Where the cells differ:\n\n- GEN-001: passed on v3.6.0/embedded, failed on v3.6.1/embedded"} {
		if !strings.Contains(summary, want) {
			t.Errorf("the matrix view lacks %q:\n%s", want, summary)
		}
	}
	dir := t.TempDir()
	if err := WriteMatrix(dir, m); err != nil {
		t.Fatal(err)
	}
	back, err := ReadMatrix(filepath.Join(dir, MatrixJSON))
	if err != nil {
		t.Fatal(err)
	}
	if !IsMatrix(filepath.Join(dir, MatrixJSON)) || len(back.Cells) != 2 {
		t.Fatalf("read back %d cells", len(back.Cells))
	}
	page, err := os.ReadFile(filepath.Join(dir, ReportHTML))
	if err != nil || !strings.Contains(string(page), `<td class="failed">failed</td>`) {
		t.Errorf("report.html: %v", err)
	}

	// The previous version's cell is the baseline of the new one's.
	base, err := back.Cell("v3.6.0/embedded")
	if err != nil {
		t.Fatal(err)
	}
	next, _ := back.Cell("v3.6.1/embedded")
	d, err := Compare(base, next, DefaultDiffOptions)
	if err != nil || !d.Regressed() || ids2(d.Regressions) != "GEN-001" {
		t.Errorf("cell against cell: %v, regressions %s", err, ids2(d.Regressions))
	}
	if _, err := back.Cell("v9/kind"); !errors.Is(err, ErrBadReport) {
		t.Errorf("an unknown cell: %v", err)
	}

	// Matrix against matrix: cell by cell, and a lost cell is a regression.
	fixed := cellReport("v3.6.1", v1alpha1.StatePassed)
	later, err := Merge([]Cell{{Name: "v3.6.1/embedded", Report: fixed}})
	if err != nil {
		t.Fatal(err)
	}
	md, err := CompareMatrices(back, later, DefaultDiffOptions)
	if err != nil {
		t.Fatal(err)
	}
	if len(md.Cells) != 1 || ids2(md.Cells[0].Diff.Fixes) != "GEN-001" || strings.Join(md.OnlyBase, ",") != "v3.6.0/embedded" || !md.Regressed() {
		t.Errorf("matrix diff: %+v", md)
	}
	if !strings.Contains(md.Markdown(), "# Cell v3.6.1/embedded") {
		t.Errorf("markdown:\n%s", md.Markdown())
	}
}

func TestMergeRefusesWhatIsNoMatrix(t *testing.T) {
	a := cellReport("v3.6.1", v1alpha1.StatePassed)
	other := cellReport("v3.6.0", v1alpha1.StatePassed)
	other.Profile = "plugin"
	harness := cellReport("v3.6.0", v1alpha1.StatePassed)
	harness.Metadata.SuiteVersion = "v0.2.0 abcdef012345"
	for name, cells := range map[string][]Cell{
		"nothing":         nil,
		"the same cell":   {{Name: "x", Report: a}, {Name: "x", Report: a}},
		"two profiles":    {{Name: "a", Report: a}, {Name: "b", Report: other}},
		"two harnesses":   {{Name: "a", Report: a}, {Name: "b", Report: harness}},
		"a name with a #": {{Name: "a#b", Report: a}},
	} {
		if _, err := Merge(cells); !errors.Is(err, ErrIncomparable) {
			t.Errorf("%s: %v, want ErrIncomparable", name, err)
		}
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "matrix.json")
	if err := os.WriteFile(p, []byte(`{"apiVersion":"`+v1alpha1.APIVersion+`","kind":"ConformanceMatrix","cells":[{"name":"a","report":{"kind":"x"}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadMatrix(p); !errors.Is(err, ErrBadReport) {
		t.Errorf("a matrix whose cell is no report: %v", err)
	}
}
