package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// MatrixKind is the kind of a merged report: the cells of a matrix (Argo CD
// versions, runtimes, plugins, or shares of one catalogue run on several
// machines), each cell's report whole.
const MatrixKind = "ConformanceMatrix"

// MatrixJSON is the file a merged report is written to.
const MatrixJSON = "matrix.json"

// Matrix is the reports of a matrix's cells, joined.
type Matrix struct {
	APIVersion   string    `json:"apiVersion"`
	Kind         string    `json:"kind"`
	Date         time.Time `json:"date"`
	Profile      string    `json:"profile"`
	SuiteVersion string    `json:"suiteVersion"`
	// Verdict is the worst of the cells' (failed, incomplete, partial,
	// passed).
	Verdict string `json:"verdict"`
	Cells   []Cell `json:"cells"`
}

// Cell is one cell of a matrix: its name and its report.
type Cell struct {
	Name   string                      `json:"name"`
	Report *v1alpha1.ConformanceReport `json:"report"`
}

// CellName is a cell's default name: the Argo CD version and the runtime,
// and for a plugin profile the plugin certified.
func CellName(r *v1alpha1.ConformanceReport) string {
	name := r.Environment.ArgoCDVersion + "/" + r.Environment.Runtime
	if r.Certification != nil {
		name += "/" + r.Certification.Subject
	}
	return name
}

// verdictRank orders verdicts from best to worst.
var verdictRank = map[string]int{v1alpha1.VerdictPassed: 0, v1alpha1.VerdictPartial: 1, v1alpha1.VerdictIncomplete: 2, v1alpha1.VerdictFailed: 3}

// Merge joins the cells' reports into one matrix. The reports must be of
// one profile and one harness (the same suite version: the same checks),
// and the cells' names distinct; anything else is ErrIncomparable.
func Merge(cells []Cell) (*Matrix, error) {
	if len(cells) == 0 {
		return nil, fmt.Errorf("%w: give the reports of the cells to merge", ErrIncomparable)
	}
	m := &Matrix{APIVersion: v1alpha1.APIVersion, Kind: MatrixKind, Profile: cells[0].Report.Profile,
		SuiteVersion: cells[0].Report.Metadata.SuiteVersion, Verdict: v1alpha1.VerdictPassed}
	seen := map[string]bool{}
	for _, c := range cells {
		r := c.Report
		switch {
		case c.Name == "" || strings.ContainsAny(c.Name, "#\n"):
			return nil, fmt.Errorf("%w: cell name %q: give a name without # or line breaks", ErrIncomparable, c.Name)
		case seen[c.Name]:
			return nil, fmt.Errorf("%w: two reports are cell %q: name them (NAME=REPORT)", ErrIncomparable, c.Name)
		case r.Profile != m.Profile:
			return nil, fmt.Errorf("%w: cell %q is of profile %q and cell %q of %q: a matrix holds one profile", ErrIncomparable, c.Name, r.Profile, cells[0].Name, m.Profile)
		case r.Metadata.SuiteVersion != m.SuiteVersion:
			return nil, fmt.Errorf("%w: cell %q was run by suite version %q and cell %q by %q: their checks may differ; merge the reports of one harness", ErrIncomparable, c.Name, r.Metadata.SuiteVersion, cells[0].Name, m.SuiteVersion)
		}
		seen[c.Name] = true
		if verdictRank[r.Summary.Verdict] > verdictRank[m.Verdict] {
			m.Verdict = r.Summary.Verdict
		}
		if r.Metadata.Date.After(m.Date) {
			m.Date = r.Metadata.Date
		}
		m.Cells = append(m.Cells, c)
	}
	return m, nil
}

// ExitCode is the matrix's exit status: its verdict's, the worst of its
// cells' (a failed cell beside a partial one is failed, exit 1).
func (m *Matrix) ExitCode() int { return verdictExitCode(m.Verdict) }

// Cell returns the cell of that name.
func (m *Matrix) Cell(name string) (*v1alpha1.ConformanceReport, error) {
	var names []string
	for _, c := range m.Cells {
		if c.Name == name {
			return c.Report, nil
		}
		names = append(names, c.Name)
	}
	return nil, fmt.Errorf("%w: the matrix has no cell %q (it has %s)", ErrBadReport, name, strings.Join(names, ", "))
}

// ReadMatrix loads a matrix.json, each cell's report validated as a report.
func ReadMatrix(path string) (*Matrix, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raw struct {
		APIVersion, Kind string
		Cells            []struct {
			Name   string
			Report json.RawMessage
		}
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBadReport, path, err)
	}
	if raw.APIVersion != v1alpha1.APIVersion || raw.Kind != MatrixKind {
		return nil, fmt.Errorf("%w: %s is %q of %q, not a %s of %s", ErrBadReport, path, raw.Kind, raw.APIVersion, MatrixKind, v1alpha1.APIVersion)
	}
	for _, c := range raw.Cells {
		if err := v1alpha1.Validate(c.Report); err != nil {
			return nil, fmt.Errorf("%w: %s, cell %q: %v", ErrBadReport, path, c.Name, err)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	m := &Matrix{}
	if err := dec.Decode(m); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBadReport, path, err)
	}
	return m, nil
}

// IsMatrix says whether the file at path is a merged report.
func IsMatrix(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var head struct{ Kind string }
	return json.Unmarshal(data, &head) == nil && head.Kind == MatrixKind
}

// WriteMatrix writes the matrix into dir: matrix.json, summary.md (the
// matrix view: each check's state in each cell) and report.html.
func WriteMatrix(dir string, m *Matrix) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	page, err := matrixHTML(m)
	if err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{SummaryMD, []byte(MatrixSummary(m))}, {ReportHTML, page}, {MatrixJSON, append(data, '\n')}} {
		if err := writeAtomic(filepath.Join(dir, f.name), f.data); err != nil {
			return err
		}
	}
	return nil
}

// matrixRow is one check across the cells.
type matrixRow struct {
	ID, Title string
	States    []string
}

// rows lists every check of any cell, in ID order, with its state per cell
// ("—" where the cell has no such check).
func (m *Matrix) rows() []matrixRow {
	byID := map[string]*matrixRow{}
	for i, c := range m.Cells {
		for _, r := range c.Report.Results {
			row, ok := byID[r.ID]
			if !ok {
				row = &matrixRow{ID: r.ID, Title: r.Title, States: slices.Repeat([]string{"—"}, len(m.Cells))}
				byID[r.ID] = row
			}
			row.States[i] = string(r.State)
		}
	}
	var out []matrixRow
	for _, id := range slices.Sorted(maps.Keys(byID)) {
		out = append(out, *byID[id])
	}
	return out
}

// MatrixSummary is the matrix view in Markdown: the cells with their
// verdicts and times, then each check's state in each cell.
func MatrixSummary(m *Matrix) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Conformance matrix: %s\n\nProfile %s, suite version %s, %d cells, verdict **%s** (the worst of the cells').\n\n",
		m.Verdict, m.Profile, m.SuiteVersion, len(m.Cells), m.Verdict)
	b.WriteString("| Cell | Argo CD | Runtime | Verdict | Core passed | Core failed | Core not run | Bring-up | Suite |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range m.Cells {
		r := c.Report
		k := r.Summary.Counts[v1alpha1.LevelCore]
		verdict := r.Summary.Verdict
		if r.Certification != nil {
			verdict += " (" + r.Certification.Level + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %d | %d | %s | %s |\n", cell(c.Name), r.Environment.ArgoCDVersion, r.Environment.Runtime,
			verdict, k.Passed, k.Failed, k.NotSupported+k.Skipped, secs(r.Timings.BringUpSeconds), secs(r.Timings.SuiteSeconds))
	}
	b.WriteString("\n## Checks\n\n| Check |")
	for _, c := range m.Cells {
		b.WriteString(" " + cell(c.Name) + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(m.Cells)) + "\n")
	var differs []string
	for _, row := range m.rows() {
		b.WriteString("| " + row.ID + " |")
		for _, s := range row.States {
			b.WriteString(" " + s + " |")
		}
		b.WriteString("\n")
		if slices.ContainsFunc(row.States, func(s string) bool { return s != row.States[0] }) {
			var by []string
			for i, s := range row.States {
				by = append(by, s+" on "+m.Cells[i].Name)
			}
			differs = append(differs, fmt.Sprintf("%s: %s", row.ID, strings.Join(by, ", ")))
		}
	}
	if len(m.Cells) > 1 {
		if len(differs) == 0 {
			b.WriteString("\nEvery check has the same state in every cell.\n")
		} else {
			b.WriteString("\nWhere the cells differ:\n\n")
			for _, d := range differs {
				b.WriteString("- " + d + "\n")
			}
		}
	}
	for _, c := range m.Cells {
		if why := Reasons(c.Report); len(why) > 0 {
			fmt.Fprintf(&b, "\n### %s\n\n", c.Name)
			for _, w := range why {
				b.WriteString("- " + bullet(w) + "\n")
			}
		}
	}
	return b.String()
}

var matrixPage = template.Must(template.New("matrix").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Conformance matrix: {{.M.Verdict}}</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em}
.passed{background:#dfd}.failed{background:#fdd}.skipped,.not-supported,.not-applicable{background:#eee}</style></head>
<body><h1>Conformance matrix: {{.M.Verdict}}</h1>
<p>Profile {{.M.Profile}}, suite version {{.M.SuiteVersion}}, {{len .M.Cells}} cells.</p>
<table><tr><th>Cell</th><th>Argo CD</th><th>Runtime</th><th>Verdict</th></tr>
{{range .M.Cells}}<tr><td>{{.Name}}</td><td>{{.Report.Environment.ArgoCDVersion}}</td><td>{{.Report.Environment.Runtime}}</td><td>{{.Report.Summary.Verdict}}</td></tr>
{{end}}</table>
<h2>Checks</h2>
<table><tr><th>Check</th>{{range .M.Cells}}<th>{{.Name}}</th>{{end}}</tr>
{{range .Rows}}<tr><td title="{{.Title}}">{{.ID}}</td>{{range .States}}<td class="{{.}}">{{.}}</td>{{end}}</tr>
{{end}}</table></body></html>
`))

func matrixHTML(m *Matrix) ([]byte, error) {
	var b bytes.Buffer
	err := matrixPage.Execute(&b, struct {
		M    *Matrix
		Rows []matrixRow
	}{m, m.rows()})
	return b.Bytes(), err
}

// MatrixDiff is two matrices compared cell by cell.
type MatrixDiff struct {
	// Cells are the diffs of the cells both have, in the new matrix's order.
	Cells []CellDiff `json:"cells"`
	// OnlyBase and OnlyNew are the cells one matrix has and the other not.
	OnlyBase []string `json:"onlyBase"`
	OnlyNew  []string `json:"onlyNew"`
}

// CellDiff is one cell's diff.
type CellDiff struct {
	Name string `json:"name"`
	Diff *Diff  `json:"diff"`
}

// Regressed says whether any shared cell regressed, or a cell went missing.
func (d *MatrixDiff) Regressed() bool {
	for _, c := range d.Cells {
		if c.Diff.Regressed() {
			return true
		}
	}
	return len(d.OnlyBase) > 0
}

// Markdown is the diff, a section per cell.
func (d *MatrixDiff) Markdown() string {
	var b strings.Builder
	for _, c := range d.Cells {
		fmt.Fprintf(&b, "# Cell %s\n\n%s\n", c.Name, c.Diff.Markdown())
	}
	if len(d.OnlyBase) > 0 {
		fmt.Fprintf(&b, "Cells only the base has (missing from the new matrix: a regression): %s\n", strings.Join(d.OnlyBase, ", "))
	}
	if len(d.OnlyNew) > 0 {
		fmt.Fprintf(&b, "Cells only the new matrix has: %s\n", strings.Join(d.OnlyNew, ", "))
	}
	return b.String()
}

// CompareMatrices diffs two matrices cell by cell, the cells of one name.
func CompareMatrices(base, next *Matrix, opts DiffOptions) (*MatrixDiff, error) {
	d := &MatrixDiff{Cells: []CellDiff{}, OnlyBase: []string{}, OnlyNew: []string{}}
	for _, c := range next.Cells {
		b, err := base.Cell(c.Name)
		if err != nil {
			d.OnlyNew = append(d.OnlyNew, c.Name)
			continue
		}
		cd, err := Compare(b, c.Report, opts)
		if err != nil {
			return nil, fmt.Errorf("cell %s: %w", c.Name, err)
		}
		d.Cells = append(d.Cells, CellDiff{Name: c.Name, Diff: cd})
	}
	for _, c := range base.Cells {
		if _, err := next.Cell(c.Name); err != nil {
			d.OnlyBase = append(d.OnlyBase, c.Name)
		}
	}
	if len(d.Cells) == 0 {
		return nil, fmt.Errorf("%w: the two matrices share no cell (base: %d cells, new: %d): compare two cells by name, MATRIX#CELL", ErrIncomparable, len(base.Cells), len(next.Cells))
	}
	return d, nil
}
