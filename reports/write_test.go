package reports

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

const coreFailure = "rendered manifests differ:\n--- want\n+++ got\n```\nkind: ConfigMap | Secret\n```"

func sampleReport() *v1alpha1.ConformanceReport {
	at := time.Date(2025, 11, 21, 18, 9, 0, 0, time.UTC)
	res := func(id, area string, level v1alpha1.Level, state v1alpha1.State, msg string, upstream ...string) v1alpha1.Result {
		return v1alpha1.Result{ID: id, Title: "check " + id, Area: area, Level: level, State: state,
			DurationSeconds: 0.25, Message: msg, Upstream: upstream, StartedAt: at}
	}
	return &v1alpha1.ConformanceReport{
		Metadata: v1alpha1.Metadata{RunID: "20251121-180900", Date: at,
			Command: "cmp-conformance run --plugin ./plugin.yaml", SuiteVersion: "v0.1.0"},
		Environment: v1alpha1.Environment{
			Runtime: "embedded", Provider: "kwok", ArgoCDVersion: "v3.2.11", KubernetesVersion: "v1.34.0",
			Binaries: []v1alpha1.Binary{{Name: "kube-apiserver", Version: "v1.34.0",
				SHA256: "0123456789abcdef0123456789abcdef", Source: "cache", Path: "/cache/kube-apiserver"}},
			Host:       v1alpha1.Host{OS: "linux", Arch: "amd64", CPUs: 8},
			Deviations: []v1alpha1.Deviation{{Tool: "kustomize", Pinned: "v5.8.3", Used: "v5.8.2", Reason: "not served"}},
		},
		Subject: v1alpha1.Subject{Plugins: []v1alpha1.Plugin{{Name: "my-plugin", Version: "v1", ConfigSHA256: "feedbeef"}}},
		Profile: "standard",
		Results: []v1alpha1.Result{
			func() v1alpha1.Result {
				r := res("GEN-001", "generate", v1alpha1.LevelCore, v1alpha1.StatePassed, "")
				r.Observations = []string{"2 resources before, 2 after the fault"}
				return r
			}(),
			res("GEN-002", "generate", v1alpha1.LevelCore, v1alpha1.StateFailed, coreFailure),
			res("DIS-001", "discover", v1alpha1.LevelExtended, v1alpha1.StateNotSupported, "no discover rule | no match"),
			res("PAR-001", "parameters", v1alpha1.LevelExtended, v1alpha1.StateSkipped, "needs GEN-002"),
			res("ENV-001", "environment", v1alpha1.LevelProvisional, v1alpha1.StateFailed,
				"ARGOCD_APP_REVISION_SHORT missing\nsee upstream", "argoproj/argo-cd#8145", "https://example.com/x"),
			res("ENV-002", "environment", v1alpha1.LevelProvisional, v1alpha1.StatePassed, ""),
		},
		Timings: v1alpha1.Timings{BringUpSeconds: 12.5, SuiteSeconds: 40, TotalSeconds: 53,
			Phases: []v1alpha1.Phase{{Name: "control-plane", Seconds: 8}, {Name: "argocd", Seconds: 4.5}}},
	}
}

// Test-side JUnit model, kept apart from the production types so a mistake
// in those cannot cancel out.
type xSuites struct {
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Time     string   `xml:"time,attr"`
	Suites   []xSuite `xml:"testsuite"`
}

type xSuite struct {
	Name     string  `xml:"name,attr"`
	Tests    int     `xml:"tests,attr"`
	Failures int     `xml:"failures,attr"`
	Errors   int     `xml:"errors,attr"`
	Skipped  int     `xml:"skipped,attr"`
	Cases    []xCase `xml:"testcase"`
}

type xCase struct {
	Classname string `xml:"classname,attr"`
	Name      string `xml:"name,attr"`
	Time      string `xml:"time,attr"`
	Failure   *xMsg  `xml:"failure"`
	Error     *xMsg  `xml:"error"`
	Skipped   *xMsg  `xml:"skipped"`
}

type xMsg struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

func readJUnit(t *testing.T, dir string) xSuites {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, JUnitXML))
	if err != nil {
		t.Fatal(err)
	}
	var s xSuites
	if err := xml.Unmarshal(data, &s); err != nil {
		t.Fatalf("junit.xml does not parse: %v", err)
	}
	if len(s.Suites) != 1 {
		t.Fatalf("got %d testsuites, want 1", len(s.Suites))
	}
	return s
}

func TestWrite(t *testing.T) {
	r := sampleReport()
	Finalize(r)
	dir := filepath.Join(t.TempDir(), "runs", r.Metadata.RunID)
	if err := Write(dir, r); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{AttestationFile, JUnitXML, ReportHTML, ReportJSON, ReportYAML, SummaryMD}; !reflect.DeepEqual(names, want) {
		t.Fatalf("files = %v, want exactly %v (no temp files left)", names, want)
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
	})

	t.Run("report.yaml has the JSON field names", func(t *testing.T) {
		data, _ := os.ReadFile(filepath.Join(dir, ReportYAML))
		for _, want := range []string{"apiVersion: " + v1alpha1.APIVersion, "argocdVersion: v3.2.11", "durationSeconds:"} {
			if !strings.Contains(string(data), want) {
				t.Errorf("report.yaml lacks %q", want)
			}
		}
		var got v1alpha1.ConformanceReport
		if err := yaml.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(&got, r) {
			t.Errorf("YAML round trip differs:\n got %+v\nwant %+v", got, *r)
		}
	})

	t.Run("junit.xml", func(t *testing.T) {
		s := readJUnit(t, dir)
		// 6 checks: GEN-002 fails; DIS-001, PAR-001 and the failed
		// Provisional ENV-001 are skipped.
		if s.Name != "cmp-conformance" || s.Tests != 6 || s.Failures != 1 || s.Skipped != 3 || s.Errors != 0 || s.Time != "53.000" {
			t.Errorf("testsuites = %+v", s)
		}
		suite := s.Suites[0]
		if suite.Tests != 6 || suite.Failures != 1 || suite.Skipped != 3 || len(suite.Cases) != 6 {
			t.Errorf("testsuite counts = tests %d failures %d skipped %d cases %d",
				suite.Tests, suite.Failures, suite.Skipped, len(suite.Cases))
		}
		cases := map[string]xCase{}
		for _, c := range suite.Cases {
			cases[strings.SplitN(c.Name, ":", 2)[0]] = c
		}
		if c := cases["GEN-002"]; c.Failure == nil || c.Failure.Body != coreFailure ||
			c.Failure.Message != "rendered manifests differ:" || c.Classname != "generate" || c.Name != "GEN-002: check GEN-002" {
			t.Errorf("GEN-002 = %+v", c)
		}
		if c := cases["ENV-001"]; c.Failure != nil || c.Skipped == nil ||
			!strings.HasPrefix(c.Skipped.Message, "provisional (does not decide the verdict): ARGOCD_APP_REVISION_SHORT") ||
			c.Classname != "environment [Provisional]" {
			t.Errorf("failed Provisional ENV-001 = %+v, want a skipped case", c)
		}
		if c := cases["ENV-002"]; c.Skipped != nil || c.Failure != nil || c.Classname != "environment [Provisional]" {
			t.Errorf("passed Provisional ENV-002 = %+v", c)
		}
		if c := cases["DIS-001"]; c.Skipped == nil || c.Skipped.Message != "not-supported: no discover rule | no match" {
			t.Errorf("DIS-001 = %+v", c)
		}
		if c := cases["PAR-001"]; c.Skipped == nil || c.Skipped.Message != "needs GEN-002" {
			t.Errorf("PAR-001 = %+v", c)
		}
		if c := cases["GEN-001"]; c.Skipped != nil || c.Failure != nil || c.Time != "0.250" {
			t.Errorf("GEN-001 = %+v", c)
		}
	})

	t.Run("summary.md", func(t *testing.T) {
		data, _ := os.ReadFile(filepath.Join(dir, SummaryMD))
		md := string(data)
		for _, want := range []string{
			"# CMP conformance report: failed\n",
			"| Argo CD | v3.2.11 |",
			"| Binary kube-apiserver | v1.34.0, sha256 0123456789ab, from cache |",
			"| Deviation kustomize | v5.8.2 used for v5.8.3: not served |",
			"| Bring-up | 12.50 |",
			"| Phase: argocd | 4.50 |",
			"### generate\n",
			"| GEN-002 | check GEN-002 | Core | failed | 0.25s | rendered manifests differ: |",
			"| GEN-001 | check GEN-001 | Core | passed | 0.25s | 2 resources before, 2 after the fault |",
			`| DIS-001 | check DIS-001 | Extended | not supported | 0.25s | no discover rule \| no match |`,
			"## Divergences from the specification",
			"[argoproj/argo-cd#8145](https://github.com/argoproj/argo-cd/issues/8145)",
			"<https://example.com/x>",
			"## Failures",
			"````text\n" + coreFailure + "\n````\n", // fence longer than the ``` inside
			"ARGOCD_APP_REVISION_SHORT missing\nsee upstream\n```",
			"cmp-conformance run --plugin ./plugin.yaml",
		} {
			if !strings.Contains(md, want) {
				t.Errorf("summary.md lacks %q", want)
			}
		}
		// The second line of a message never leaks into a table row.
		for line := range strings.Lines(md) {
			if strings.HasPrefix(line, "|") && strings.Contains(line, "see upstream") {
				t.Errorf("multi-line message leaked into a table: %q", line)
			}
		}
	})
}

func TestWriteRunProblemsInJUnit(t *testing.T) {
	tests := []struct {
		name        string
		err         string
		interrupted bool
		wantErrors  int
	}{
		{name: "clean", wantErrors: 0},
		{name: "bring-up error", err: "bring-up: apiserver did not start", wantErrors: 1},
		{name: "interrupted", interrupted: true, wantErrors: 1},
		{name: "both", err: "boom", interrupted: true, wantErrors: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &v1alpha1.ConformanceReport{Error: tt.err, Interrupted: tt.interrupted,
				Results: []v1alpha1.Result{leveled("C1", v1alpha1.LevelCore, v1alpha1.StatePassed)}}
			r.Environment.Runtime = "embedded"
			Finalize(r)
			dir := t.TempDir()
			if err := Write(dir, r); err != nil {
				t.Fatal(err)
			}
			s := readJUnit(t, dir)
			if s.Errors != tt.wantErrors || s.Tests != 1+tt.wantErrors || s.Suites[0].Errors != tt.wantErrors {
				t.Errorf("tests %d errors %d, want tests %d errors %d", s.Tests, s.Errors, 1+tt.wantErrors, tt.wantErrors)
			}
			md, _ := os.ReadFile(filepath.Join(dir, SummaryMD))
			if tt.err != "" && !strings.Contains(string(md), "### Run error\n\n```text\n"+tt.err+"\n```") {
				t.Errorf("summary.md lacks the run error:\n%s", md)
			}
		})
	}
}

func TestWriteReplacesFiles(t *testing.T) {
	dir := t.TempDir()
	r := sampleReport()
	Finalize(r)
	if err := Write(dir, r); err != nil {
		t.Fatal(err)
	}
	r.Results = []v1alpha1.Result{leveled("GEN-001", v1alpha1.LevelCore, v1alpha1.StatePassed)}
	Finalize(r)
	if err := Write(dir, r); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, SummaryMD))
	if !strings.HasPrefix(string(md), "# CMP conformance report: passed\n") {
		t.Errorf("summary.md not replaced:\n%s", md)
	}
	info, err := os.Stat(filepath.Join(dir, ReportJSON))
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o644 {
		t.Errorf("report.json mode = %v, want 0644", perm)
	}
}

func TestPublish(t *testing.T) {
	root := t.TempDir()
	for _, run := range []string{"run-1", "run-2"} {
		if err := os.MkdirAll(filepath.Join(root, run), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(root, run, "id"), []byte(run), 0o644)
	}
	latest := filepath.Join(root, LatestLink)
	for _, run := range []string{"run-1", "run-2", "run-2"} {
		if err := Publish(root, run); err != nil {
			t.Fatalf("Publish(%s): %v", run, err)
		}
		target, err := os.Readlink(latest)
		if err != nil {
			t.Fatal(err)
		}
		if target != run {
			t.Errorf("latest -> %q, want relative %q", target, run)
		}
		if id, _ := os.ReadFile(filepath.Join(latest, "id")); string(id) != run {
			t.Errorf("latest/id = %q, want %q", id, run)
		}
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 3 {
		t.Errorf("root has %d entries, want run-1, run-2, latest (no temp links)", len(entries))
	}

	for _, bad := range []string{"", ".", "..", "latest", "a/b", "missing"} {
		if err := Publish(root, bad); err == nil {
			t.Errorf("Publish(%q) succeeded", bad)
		}
	}
	if target, _ := os.Readlink(latest); target != "run-2" {
		t.Errorf("a failed Publish moved latest to %q", target)
	}
}

func TestPublishRefusesToReplaceDirectory(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "run-1"), 0o755)
	os.MkdirAll(filepath.Join(root, LatestLink, "keep"), 0o755)
	if err := Publish(root, "run-1"); err == nil {
		t.Fatal("Publish replaced a real latest directory")
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 2 {
		t.Errorf("root has %d entries, want 2 (temp link not cleaned up)", len(entries))
	}
}

// Tool output often carries ANSI colour codes, which XML 1.0 forbids; the
// JUnit file must still parse.
func TestJUnitControlCharacters(t *testing.T) {
	r := &v1alpha1.ConformanceReport{Results: []v1alpha1.Result{
		leveled("C1", v1alpha1.LevelCore, v1alpha1.StateFailed),
	}}
	r.Results[0].Message = "\x1b[31merror\x1b[0m: <bad> & \"quoted\"\x00"
	r.Results[0].Title = "a <title> & more"
	r.Environment.Runtime = "embedded"
	Finalize(r)
	dir := t.TempDir()
	if err := Write(dir, r); err != nil {
		t.Fatal(err)
	}
	s := readJUnit(t, dir)
	c := s.Suites[0].Cases[0]
	if c.Failure == nil || !strings.Contains(c.Failure.Body, `error`) || !strings.Contains(c.Failure.Body, `<bad> & "quoted"`) {
		t.Errorf("failure = %+v", c.Failure)
	}
	if c.Name != "C1: a <title> & more" {
		t.Errorf("name = %q", c.Name)
	}
}
