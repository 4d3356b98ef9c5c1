package reports

import (
	"github.com/cmp-conformance/cmp-conformance/fixtures/uipage"

	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// htmlSample is the sample report with hostile text where plugin output
// lands (a message, an observation, a step) and a self-test mismatch.
func htmlSample() *v1alpha1.ConformanceReport {
	r := sampleReport()
	r.Results[1].Message = "plugin said <script>alert(1)</script>\nsecond line"
	r.Results[1].Steps = []v1alpha1.Step{{AtSeconds: 0.5, Text: "when CreateApp app-1: ok"}, {AtSeconds: 3.25, Text: "then SyncStatusIs within 1m30s: not met"}}
	r.Results[0].Observations = []string{`<img src=x onerror=alert(2)>`}
	r.SelfTest = []v1alpha1.SelfTestResult{{CheckID: "GEN-002", Witness: "broken/plain-x", Expected: "fail", Observed: v1alpha1.StatePassed, Message: "passed"}}
	Finalize(r)
	return r
}

func TestHTMLContentAndEscaping(t *testing.T) {
	page, err := renderHTML(htmlSample())
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	for _, want := range []string{
		`<span class="verdict v-failed" id="verdict">failed</span>`,
		`<td id="argocd-version">v3.2.11</td>`,
		`plugin said &lt;script&gt;alert(1)&lt;/script&gt;`,
		`&lt;img src=x onerror=alert(2)&gt;`,
		`   3.25s  then SyncStatusIs within 1m30s: not met`,
		`<a href="https://github.com/argoproj/argo-cd/issues/8145">argoproj/argo-cd#8145</a>`,
		`self-test GEN-002 vs broken/plain-x: expected to fail, observed passed`,
		`<tr class="check" data-state="failed" id="check-GEN-002">`,
		`Content-Security-Policy`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	// Self-contained: nothing is fetched.
	for _, bad := range []string{`<script src`, `<link `, `@import`, `url(`} {
		if strings.Contains(s, bad) {
			t.Errorf("report.html references an outside resource (%q)", bad)
		}
	}
}

// TestHTMLInChromium opens the page in headless Chromium (Debian's package):
// the DOM after scripts ran must hold the verdict and the checks, and a
// screenshot must be taken. `make test` installs Chromium and sets
// CMP_CONFORMANCE_REQUIRE_CHROMIUM, so there this never skips.
func TestHTMLInChromium(t *testing.T) {
	bin, err := uipage.Browser()
	if err != nil {
		if os.Getenv("CMP_CONFORMANCE_REQUIRE_CHROMIUM") != "" {
			t.Fatal("chromium is not installed (make deps installs it)")
		}
		t.Skip("chromium is not installed")
	}
	dir := t.TempDir()
	// CMP_CONFORMANCE_SCREENSHOT_OF, a real report.json, is what the
	// screenshot shows (`make docs` makes docs/report-html.png of a
	// run's report so); the DOM is judged on the sample either way.
	if err := Write(dir, htmlSample()); err != nil {
		t.Fatal(err)
	}
	shown := dir
	if of := os.Getenv("CMP_CONFORMANCE_SCREENSHOT_OF"); of != "" {
		r, err := Read(of)
		if err != nil {
			t.Fatal(err)
		}
		shown = filepath.Join(dir, "shown")
		if err := Write(shown, r); err != nil {
			t.Fatal(err)
		}
	}
	page := "file://" + filepath.Join(dir, ReportHTML)
	shot := filepath.Join(os.Getenv("CMP_CONFORMANCE_SCREENSHOT_DIR"), "report-html.png")
	if os.Getenv("CMP_CONFORMANCE_SCREENSHOT_DIR") == "" {
		shot = filepath.Join(dir, "report-html.png")
	}
	// --no-sandbox: the test may run as root, where Chromium's sandbox refuses to start.
	common := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=" + filepath.Join(dir, "profile")}
	out, err := exec.Command(bin, append(common, "--virtual-time-budget=2000", "--dump-dom", page)...).Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	dom := string(out)
	for _, want := range []string{`id="verdict">failed<`, `id="check-GEN-001"`, `id="check-GEN-002"`, "argoproj/argo-cd#8145", "Self-test against witnesses"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered DOM lacks %q", want)
		}
	}
	if strings.Contains(dom, "<script>alert(1)") {
		t.Error("a hostile message became markup")
	}
	shownPage := "file://" + filepath.Join(shown, ReportHTML)
	if out, err := exec.Command(bin, append(common, "--window-size=1280,1600", "--screenshot="+shot, shownPage)...).CombinedOutput(); err != nil {
		t.Fatalf("chromium --screenshot: %v\n%s", err, out)
	}
	if fi, err := os.Stat(shot); err != nil || fi.Size() < 10_000 {
		t.Fatalf("no screenshot of the page (%v)", err)
	}
	t.Logf("screenshot: %s", shot)
}
