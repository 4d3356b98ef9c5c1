package parallel

import (
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/plugins"
	"github.com/cmp-conformance/cmp-conformance/reports"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

// writeTestReport writes a report.json under reportsDir/id.
func writeTestReport(t *testing.T, reportsDir, id string, r v1alpha1.ConformanceReport) {
	t.Helper()
	dir := filepath.Join(reportsDir, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, reports.ReportJSON), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPastTimings(t *testing.T) {
	dir := t.TempDir()
	at := func(v string) v1alpha1.Environment { return v1alpha1.Environment{ArgoCDVersion: v} }
	// Oldest: a full run at this version.
	writeTestReport(t, dir, "20260101-000000-aaaa", v1alpha1.ConformanceReport{Environment: at("v3.6.1"),
		Results:  []v1alpha1.Result{{ID: "SMOKE-001", State: v1alpha1.StatePassed, DurationSeconds: 10}, {ID: "FAULT-001", State: v1alpha1.StatePassed, DurationSeconds: 40}},
		SelfTest: []v1alpha1.SelfTestResult{{CheckID: "SVC-008", Witness: "broken/w", DurationSeconds: 90}}})
	// Newer: a filtered run at this version; its skipped rows say nothing.
	writeTestReport(t, dir, "20260102-000000-bbbb", v1alpha1.ConformanceReport{Environment: at("v3.6.1"),
		Results: []v1alpha1.Result{{ID: "SMOKE-001", State: v1alpha1.StatePassed, DurationSeconds: 12}, {ID: "FAULT-001", State: v1alpha1.StateSkipped}}})
	// Newer still: another version, whose figures only fill gaps.
	writeTestReport(t, dir, "20260103-000000-cccc", v1alpha1.ConformanceReport{Environment: at("v2.14.21"),
		Results: []v1alpha1.Result{{ID: "SMOKE-001", State: v1alpha1.StatePassed, DurationSeconds: 99}, {ID: "HELM-001", State: v1alpha1.StatePassed, DurationSeconds: 20}}})
	// Newest: an upgrade run (the last of make test) says nothing of the catalogue.
	writeTestReport(t, dir, "20260104-000000-dddd", v1alpha1.ConformanceReport{Environment: at("v3.6.1"), Profile: plugins.ProfileUpgrade,
		Results: []v1alpha1.Result{{ID: "SMOKE-001", State: v1alpha1.StatePassed, DurationSeconds: 500}}})
	// A certification's self-test: its witness rows count, its subject's
	// results are no conformance binding's.
	writeTestReport(t, dir, "20260104-120000-cert", v1alpha1.ConformanceReport{Environment: at("v3.6.1"), Profile: plugins.ProfilePlugin,
		Results:  []v1alpha1.Result{{ID: "PLUG-002", State: v1alpha1.StatePassed, DurationSeconds: 5}},
		SelfTest: []v1alpha1.SelfTestResult{{CheckID: "PLUG-002", Witness: "broken/subject-unhealthy", DurationSeconds: 63}}})
	// The run itself, and a broken report, are left out.
	writeTestReport(t, dir, "20260105-000000-eeee", v1alpha1.ConformanceReport{Environment: at("v3.6.1"),
		Results: []v1alpha1.Result{{ID: "SMOKE-001", State: v1alpha1.StatePassed, DurationSeconds: 700}}})
	if err := os.MkdirAll(filepath.Join(dir, "20260106-000000-ffff"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "20260106-000000-ffff", reports.ReportJSON), []byte("{"), 0o644)
	os.Symlink("20260105-000000-eeee", filepath.Join(dir, reports.LatestLink))

	got := PastTimings(dir, "v3.6.1", "20260105-000000-eeee")
	want := map[string]float64{
		Key("conformance", "SMOKE-001"):             12, // newest at this version
		Key("conformance", "FAULT-001"):             40, // the newest that ran it
		Key("broken/w", "SVC-008"):                  90,
		Key("conformance", "HELM-001"):              20, // only another version knows it
		Key("broken/subject-unhealthy", "PLUG-002"): 63,
	}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for k, s := range want {
		if got[k] != s {
			t.Errorf("%s: %v, want %v", k, got[k], s)
		}
	}
	if got := PastTimings(filepath.Join(dir, "none"), "v3.6.1", ""); len(got) != 0 {
		t.Errorf("no reports folder: %v", got)
	}
}

// TestDefaultTimings checks the reference timings a fresh clone balances
// by: they parse and know every check of the catalogue. With
// CMPC_TIMINGS_FROM=<report.json> it rewrites timings.json from that report
// (a full catalogue self-test) first.
func TestDefaultTimings(t *testing.T) {
	if from := os.Getenv("CMPC_TIMINGS_FROM"); from != "" {
		seconds := map[string]float64{}
		var sources []string
		for _, file := range filepath.SplitList(from) {
			r := ReadReport(file)
			if r == nil || len(r.SelfTest) == 0 || r.Upgrade != nil {
				t.Fatalf("%s: not the report of a self-test (catalogue or certification)", file)
			}
			for k, s := range TimingsOf(r) {
				seconds[k] = max(float64(int(s*10+0.5))/10, 0.1) // a row of no time is still known
			}
			sources = append(sources, cmp.Or(r.Profile, "catalogue")+" self-test of Argo CD "+r.Environment.ArgoCDVersion+", "+r.Environment.Runtime+
				" runtime, run "+r.Metadata.RunID+" ("+r.Metadata.Command+")")
		}
		data, err := json.MarshalIndent(timings{Source: strings.Join(sources, "; "), Seconds: seconds}, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("timings.json", append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		defaultTimingsJSON = data
	}
	var tm timings
	if err := json.Unmarshal(defaultTimingsJSON, &tm); err != nil {
		t.Fatalf("timings.json: %v", err)
	}
	if tm.Source == "" {
		t.Error("timings.json does not say where its figures come from")
	}
	ids := map[string]bool{}
	for _, c := range conformance.All() {
		ids[c.ID] = true
		// Only the catalogue is shared out to parallel environments.
		if c.Area != conformance.Upgrade && c.Area != conformance.Plugin {
			if _, ok := tm.Seconds[Key("conformance", c.ID)]; !ok {
				t.Errorf("timings.json has no time for %s of the conformance binding", c.ID)
			}
		}
	}
	for k, s := range tm.Seconds {
		binding, check, _ := strings.Cut(k, "|")
		if !ids[check] || (binding != "conformance" && !strings.HasPrefix(binding, "broken/")) || s <= 0 {
			t.Errorf("timings.json: %s: %v", k, s)
		}
	}
}
