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

const (
	hop1 = "v3.0.23 -> v3.2.11"
	hop2 = "v3.2.11 -> v3.0.23"
	sumA = "sha256:aaaaaaaaaaaa1111111111111111111111111111111111111111111111111111"
	sumB = "sha256:bbbbbbbbbbbb2222222222222222222222222222222222222222222222222222"
)

func onHop(res v1alpha1.Result, hop string) v1alpha1.Result {
	res.Hop = hop
	return res
}

// hopIDs lists results as "ID@hop" to show which per-hop result is where.
func hopIDs(rs []v1alpha1.Result) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.ID+"@"+r.Hop)
	}
	return out
}

// upgradeReport is sampleReport after an upgrade run along v3.0.23 ->
// v3.2.11 -> v3.0.23: the UPG checks ran after each hop (recorded out of ID
// order), UPG-002 failed on the way back, and the second hop failed to bring
// the witness's manifests back.
func upgradeReport() *v1alpha1.ConformanceReport {
	r := sampleReport()
	upg := func(id string, level v1alpha1.Level, state v1alpha1.State, hop, msg string) v1alpha1.Result {
		res := leveled(id, level, state)
		res.Area, res.Hop, res.Message = "upgrade", hop, msg
		return res
	}
	r.Results = append(r.Results,
		upg("UPG-002", v1alpha1.LevelCore, v1alpha1.StatePassed, hop1, ""),
		upg("UPG-001", v1alpha1.LevelCore, v1alpha1.StatePassed, hop1, ""),
		upg("UPG-003", v1alpha1.LevelProvisional, v1alpha1.StateFailed, hop1, "sync wave order changed"),
		upg("UPG-001", v1alpha1.LevelCore, v1alpha1.StatePassed, hop2, ""),
		upg("UPG-002", v1alpha1.LevelCore, v1alpha1.StateFailed, hop2, "app not Healthy within 300s"),
		upg("UPG-003", v1alpha1.LevelProvisional, v1alpha1.StatePassed, hop2, ""),
	)
	r.Upgrade = &v1alpha1.Upgrade{
		Path:           []string{"v3.0.23", "v3.2.11", "v3.0.23"},
		TimeoutSeconds: 300,
		Apps: []v1alpha1.UpgradeApp{
			{Name: "upg-plain", Binding: "conformance", Role: "plain", Plugin: "my-plugin"},
			{Name: "upg-drops", Binding: wDrops, Role: "plain", Plugin: "my-plugin"},
		},
		Hops: []v1alpha1.Hop{
			{Name: hop1, From: "v3.0.23", To: "v3.2.11", Seconds: 95.5,
				Phases: []v1alpha1.Phase{{Name: "switch", Seconds: 60}, {Name: "sync", Seconds: 35.5}},
				Apps: []v1alpha1.HopApp{
					{Name: "upg-plain", ManifestsBefore: sumA, ManifestsAfter: sumA},
					{Name: "upg-drops", ManifestsBefore: sumA, ManifestsAfter: sumB,
						ExpectedDifferences: []string{"label order (argoproj/argo-cd#1)", "new annotation | x"}},
				}},
			{Name: hop2, From: "v3.2.11", To: "v3.0.23", Seconds: 80,
				Apps:  []v1alpha1.HopApp{{Name: "upg-drops", ManifestsBefore: sumB}},
				Error: "repo-server did not become ready\nafter 300s"},
		},
	}
	return r
}

func TestReadAllKeepsEachHop(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	rec, err := OpenRecorder(path)
	if err != nil {
		t.Fatal(err)
	}
	retried := onHop(result("UPG-001", v1alpha1.StatePassed), hop1)
	retried.Message = "retried"
	for _, res := range []v1alpha1.Result{
		onHop(result("UPG-001", v1alpha1.StateFailed), hop1),
		result("UPG-001", v1alpha1.StatePassed), // outside the upgrade
		onHop(result("UPG-001", v1alpha1.StatePassed), hop2),
		retried,
	} {
		if err := rec.Record(res); err != nil {
			t.Fatal(err)
		}
	}
	stRetried := selfTest("UPG-001", wDrops, "fail", v1alpha1.StateFailed, true)
	stRetried.Hop = hop1
	for _, st := range []v1alpha1.SelfTestResult{
		{CheckID: "UPG-001", Witness: wDrops, Expected: "fail", Observed: v1alpha1.StatePassed, Hop: hop1},
		{CheckID: "UPG-001", Witness: wDrops, Expected: "fail", Observed: v1alpha1.StateFailed, OK: true, Hop: hop2},
		stRetried,
	} {
		if err := rec.RecordSelfTest(st); err != nil {
			t.Fatal(err)
		}
	}
	rec.Close()

	results, selfTests, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"UPG-001@" + hop1, "UPG-001@", "UPG-001@" + hop2}; !slices.Equal(hopIDs(results), want) {
		t.Fatalf("results = %v, want %v", hopIDs(results), want)
	}
	if !reflect.DeepEqual(results[0], retried) {
		t.Errorf("retry on a hop: got %+v, want the last record %+v", results[0], retried)
	}
	var stHops []string
	for _, st := range selfTests {
		stHops = append(stHops, st.Hop)
	}
	if !slices.Equal(stHops, []string{hop1, hop2}) {
		t.Fatalf("self-test hops = %v, want %v", stHops, []string{hop1, hop2})
	}
	if !reflect.DeepEqual(selfTests[0], stRetried) {
		t.Errorf("self-test retry on a hop: got %+v, want %+v", selfTests[0], stRetried)
	}
}

func TestFinalizeUpgrade(t *testing.T) {
	r := upgradeReport()
	// Stale checks must be replaced, not appended to.
	r.Upgrade.Hops[0].Checks = []v1alpha1.HopCheck{{ID: "stale", State: v1alpha1.StatePassed}}
	Finalize(r)

	var upg []v1alpha1.Result
	for _, res := range r.Results {
		if res.Area == "upgrade" {
			upg = append(upg, res)
		}
	}
	// Sorted by ID; within an ID, the recording (hop) order.
	want := []string{"UPG-001@" + hop1, "UPG-001@" + hop2, "UPG-002@" + hop1, "UPG-002@" + hop2, "UPG-003@" + hop1, "UPG-003@" + hop2}
	if !slices.Equal(hopIDs(upg), want) {
		t.Errorf("upgrade results = %v, want %v", hopIDs(upg), want)
	}
	wantChecks := [][]v1alpha1.HopCheck{
		{{ID: "UPG-001", State: "passed"}, {ID: "UPG-002", State: "passed"}, {ID: "UPG-003", State: "failed"}},
		{{ID: "UPG-001", State: "passed"}, {ID: "UPG-002", State: "failed"}, {ID: "UPG-003", State: "passed"}},
	}
	for i, h := range r.Upgrade.Hops {
		if !reflect.DeepEqual(h.Checks, wantChecks[i]) {
			t.Errorf("hop %s checks = %+v, want %+v", h.Name, h.Checks, wantChecks[i])
		}
	}
	if h := r.Upgrade.Hops[1]; h.Phases == nil {
		t.Error("nil hop phases left after Finalize")
	}
	// Each per-hop result counts once.
	if r.Summary.Total != 12 || r.Summary.Counts[v1alpha1.LevelCore] != (v1alpha1.Counts{Passed: 4, Failed: 2}) {
		t.Errorf("total %d, core counts %+v", r.Summary.Total, r.Summary.Counts[v1alpha1.LevelCore])
	}
	var titles []string
	for _, d := range r.Divergences {
		if d.ID == "UPG-003" {
			titles = append(titles, d.Title)
		}
	}
	if want := []string{"title UPG-003 (hop " + hop1 + ")", "title UPG-003 (hop " + hop2 + ")"}; !slices.Equal(titles, want) {
		t.Errorf("UPG-003 divergence titles = %q, want %q", titles, want)
	}
	if r.Results[slices.IndexFunc(r.Results, func(res v1alpha1.Result) bool { return res.ID == "UPG-003" })].Title != "title UPG-003" {
		t.Error("the divergence title leaked into the result's")
	}

	before := *r
	before.Results = slices.Clone(r.Results)
	before.Divergences = slices.Clone(r.Divergences)
	up := *r.Upgrade
	up.Hops = slices.Clone(up.Hops)
	before.Upgrade = &up
	Finalize(r)
	if !reflect.DeepEqual(*r, before) {
		t.Error("second Finalize changed the report")
	}
}

func TestFinalizeUpgradeNormalizesNilSlices(t *testing.T) {
	r := &v1alpha1.ConformanceReport{Upgrade: &v1alpha1.Upgrade{Hops: []v1alpha1.Hop{{Name: hop1}}}}
	Finalize(r)
	u := r.Upgrade
	if u.Path == nil || u.Apps == nil || u.Hops[0].Phases == nil || u.Hops[0].Apps == nil || u.Hops[0].Checks == nil {
		t.Errorf("nil slices left after Finalize: %+v", u)
	}
	if data, _ := json.Marshal(r); strings.Contains(string(data), "null") {
		t.Errorf("report.json carries null: %s", data)
	}
	r = sampleReport()
	Finalize(r)
	if data, _ := json.Marshal(r); r.Upgrade != nil || strings.Contains(string(data), `"upgrade"`) || strings.Contains(string(data), `"hop"`) {
		t.Errorf("a run that was not an upgrade run mentions it: %s", data)
	}
}

func TestWriteUpgrade(t *testing.T) {
	r := upgradeReport()
	r.SelfTest = []v1alpha1.SelfTestResult{
		{CheckID: "UPG-001", Witness: wDrops, Expected: "fail", Observed: v1alpha1.StateFailed, OK: true, Hop: hop1},
		{CheckID: "UPG-001", Witness: wDrops, Expected: "fail", Observed: v1alpha1.StatePassed, Hop: hop2},
	}
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
	})

	t.Run("summary.md", func(t *testing.T) {
		data, _ := os.ReadFile(filepath.Join(dir, SummaryMD))
		md := string(data)
		for _, want := range []string{
			"| ID | Hop | Title | Level | State | Duration | Note |\n",
			"| GEN-001 |  | check GEN-001 | Core | passed | 0.25s |",
			"| UPG-001 | " + hop1 + " | title UPG-001 | Core | passed | 1.50s |  |\n| UPG-001 | " + hop2 + " |",
			"## Upgrade\n\nPath: v3.0.23 -> v3.2.11 -> v3.0.23. After each hop every application must be Synced and Healthy again within 300.00s.\n\n",
			"| upg-drops | broken/plain-drops-resources | plain | my-plugin |\n",
			"| Hop | Seconds | Phases | Checks passed | Checks failed | Error |\n",
			"| " + hop1 + " | 95.50 | switch 60.00, sync 35.50 | 2 | 1 |  |\n",
			"| " + hop2 + " | 80.00 |  | 2 | 1 | repo-server did not become ready |\n",
			"### Hop " + hop1 + "\n\n| Application | Before | After | Manifests | Expected differences |\n",
			"| upg-plain | aaaaaaaaaaaa | aaaaaaaaaaaa | identical |  |\n",
			`| upg-drops | aaaaaaaaaaaa | bbbbbbbbbbbb | changed | label order (argoproj/argo-cd#1); new annotation \| x |` + "\n",
			"### Hop " + hop2 + "\n\n| Application | Before | After | Manifests | Expected differences |\n|---|---|---|---|---|\n" +
				"| upg-drops | bbbbbbbbbbbb |  | not generated |  |\n",
			"| title UPG-003 (hop " + hop1 + ") | failed |",
			"### UPG-002 (hop " + hop2 + "): title UPG-002 (Core)\n",
			"### Upgrade hop " + hop2 + "\n\n```text\nrepo-server did not become ready\nafter 300s\n```\n",
			"| Check | Hop | Witness | Expected | Observed | OK |\n",
			"| UPG-001 | " + hop2 + " | broken/plain-drops-resources | fail | passed | NO |\n",
			"### SELFTEST UPG-001 vs broken/plain-drops-resources (hop " + hop2 + ")\n",
		} {
			if !strings.Contains(md, want) {
				t.Errorf("summary.md lacks %q", want)
			}
		}
		if i, j := strings.Index(md, "## Results"), strings.Index(md, "## Upgrade"); i < 0 || j < i {
			t.Errorf("Upgrade section at %d, want after Results at %d", j, i)
		}
	})

	t.Run("junit.xml names are unique", func(t *testing.T) {
		data, _ := os.ReadFile(filepath.Join(dir, JUnitXML))
		var s xSuites
		if err := xml.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, suite := range s.Suites {
			for _, c := range suite.Cases {
				key := suite.Name + "/" + c.Classname + "/" + c.Name
				if seen[key] {
					t.Errorf("duplicate test case %q", key)
				}
				seen[key] = true
			}
		}
		for _, want := range []string{
			"cmp-conformance/upgrade/UPG-002 [" + hop2 + "]: title UPG-002",
			"cmp-conformance/upgrade [Provisional]/UPG-003 [" + hop1 + "]: title UPG-003",
			"cmp-conformance/generate/GEN-001: check GEN-001",
			"cmp-conformance-selftest/selftest." + wDrops + "/UPG-001 [" + hop1 + "] expected to fail",
		} {
			if !seen[want] {
				t.Errorf("no test case %q in %v", want, seen)
			}
		}
	})
}

func TestValidatorRejectsUpgrade(t *testing.T) {
	r := upgradeReport()
	Finalize(r)
	good, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if errs := schemaErrors(t, good); len(errs) > 0 {
		t.Fatalf("upgrade report does not match the schema:\n%s", strings.Join(errs, "\n"))
	}
	upgrade := func(m map[string]any) map[string]any { return m["upgrade"].(map[string]any) }
	hop0 := func(m map[string]any) map[string]any { return upgrade(m)["hops"].([]any)[0].(map[string]any) }
	tests := []struct {
		name   string
		mutate func(m map[string]any)
		want   string
	}{
		{"missing hops", func(m map[string]any) { delete(upgrade(m), "hops") }, `missing property 'hops'`},
		{"null path", func(m map[string]any) { upgrade(m)["path"] = nil }, "got null, want"},
		{"missing app binding", func(m map[string]any) {
			delete(upgrade(m)["apps"].([]any)[0].(map[string]any), "binding")
		}, `missing property 'binding'`},
		{"null hop checks", func(m map[string]any) { hop0(m)["checks"] = nil }, "got null, want"},
		{"bad hop check state", func(m map[string]any) {
			hop0(m)["checks"].([]any)[0].(map[string]any)["state"] = "ok"
		}, "value must be one of"},
		{"missing manifestsBefore", func(m map[string]any) {
			delete(hop0(m)["apps"].([]any)[0].(map[string]any), "manifestsBefore")
		}, `missing property 'manifestsBefore'`},
		{"unknown hop field", func(m map[string]any) { hop0(m)["version"] = "v3" }, `additional properties 'version' not allowed`},
		{"empty result hop", func(m map[string]any) {
			m["results"].([]any)[len(m["results"].([]any))-1].(map[string]any)["hop"] = ""
		}, "minLength"},
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
