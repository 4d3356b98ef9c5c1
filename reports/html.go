package reports

import (
	"bytes"
	_ "embed"
	"html/template"
	"strings"

	"github.com/cmp-conformance/cmp-conformance/internal/text"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// ReportHTML is the page Write produces for people: self-contained (styles
// and the one script inline, a Content-Security-Policy that forbids any
// fetch), so it opens from a CI artifact or an e-mail with no network.
const ReportHTML = "report.html"

//go:embed report.html.tmpl
var htmlTemplate string

var reportPage = template.Must(template.New("report").Funcs(template.FuncMap{
	"secs":  secs,
	"first": text.FirstLine,
	"link":  htmlLink,
	"slug":  func(s string) string { return strings.ReplaceAll(strings.ToLower(s), " ", "-") },
}).Parse(htmlTemplate))

func renderHTML(r *v1alpha1.ConformanceReport) ([]byte, error) {
	var b bytes.Buffer
	err := reportPage.Execute(&b, struct {
		R      *v1alpha1.ConformanceReport
		Why    []string
		Levels []v1alpha1.Level
	}{r, Reasons(r), []v1alpha1.Level{v1alpha1.LevelCore, v1alpha1.LevelExtended, v1alpha1.LevelProvisional}})
	return b.Bytes(), err
}

// htmlLink links an upstream reference (argoproj/argo-cd#8145, or a URL);
// anything else stays text. html/template escapes the parts and refuses
// unsafe URL schemes.
func htmlLink(ref string) template.HTML {
	ref = strings.TrimSpace(ref)
	url := upstreamURL(ref)
	if url == "" {
		return template.HTML(template.HTMLEscapeString(ref))
	}
	return template.HTML(`<a href="` + template.HTMLEscapeString(url) + `">` + template.HTMLEscapeString(ref) + `</a>`)
}
