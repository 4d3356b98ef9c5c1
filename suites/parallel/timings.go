package parallel

import (
	_ "embed"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cmp-conformance/cmp-conformance/plugins"
	"github.com/cmp-conformance/cmp-conformance/reports"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// A parallel run balances its shares by what each spec is expected to cost:
// the seconds it took in the newest earlier reports of this output folder,
// else in the reference timings below, else typicalSeconds; each plus
// specOverhead. Upgrade runs say nothing (their specs belong to hops).

// defaultTimingsJSON holds each spec's seconds in a full self-test and a
// certification's self-test (v3.6.1, embedded runtime, 2 cores, 3
// environments side by side): what a fresh clone balances by. Regenerate it
// from later reports (a list, as PATH separates) with
//
//	CMPC_TIMINGS_FROM=<catalogue report.json>:<certify report.json> go test ./suites/parallel -run TestDefaultTimings
//
//go:embed timings.json
var defaultTimingsJSON []byte

// timings is what timings.json holds: seconds by specKey.
type timings struct {
	// Source says which run the figures come from.
	Source  string             `json:"source"`
	Seconds map[string]float64 `json:"seconds"`
}

// Key names a spec across reports: its binding and its check.
func Key(binding, check string) string { return binding + "|" + check }

func DefaultTimings() map[string]float64 {
	var t timings
	if err := json.Unmarshal(defaultTimingsJSON, &t); err != nil {
		return map[string]float64{}
	}
	return t.Seconds
}

// TimingsOf is the seconds of every spec of a report that ran: the
// conformance binding's results of a catalogue run, and the witness rows of
// any self-test (a certification's too: its witnesses are whole units of
// its shares, and one that waits a deadline out weighs a minute).
func TimingsOf(r *v1alpha1.ConformanceReport) map[string]float64 {
	out := map[string]float64{}
	if r == nil {
		return out
	}
	for _, res := range r.Results {
		if ofCatalogue(r) && res.Hop == "" && res.State != v1alpha1.StateSkipped && res.DurationSeconds > 0 {
			out[Key("conformance", res.ID)] = res.DurationSeconds
		}
	}
	for _, st := range r.SelfTest {
		if st.Hop == "" && st.DurationSeconds > 0 {
			out[Key(st.Witness, st.CheckID)] = st.DurationSeconds
		}
	}
	return out
}

// pastReports bounds how many earlier reports a parallel run reads.
const pastReports = 12

// PastTimings gathers each spec's seconds from the newest reports
// under reportsDir (<output>/reports), the run ID except: for each spec, its
// newest figure at this Argo CD version, else its newest at another. Upgrade
// runs (the last of make test) and interrupted specs say nothing; a report
// of a label-filtered run says what it ran.
func PastTimings(reportsDir, version, except string) map[string]float64 {
	entries, _ := os.ReadDir(reportsDir)
	var ids []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != except && !strings.HasPrefix(e.Name(), ".") {
			ids = append(ids, e.Name())
		}
	}
	// Run IDs start with their UTC time: the newest sort last.
	slices.Sort(ids)
	slices.Reverse(ids)
	same, other := map[string]float64{}, map[string]float64{}
	read := 0
	for _, id := range ids {
		if read == pastReports {
			break
		}
		r := ReadReport(filepath.Join(reportsDir, id, reports.ReportJSON))
		if r == nil {
			continue
		}
		read++
		into := other
		if r.Environment.ArgoCDVersion == version {
			into = same
		}
		for k, s := range TimingsOf(r) {
			if _, ok := into[k]; !ok {
				into[k] = s
			}
		}
	}
	for k, s := range other {
		if _, ok := same[k]; !ok {
			same[k] = s
		}
	}
	return same
}

// ofCatalogue says whether r is a catalogue run's report, whose results
// are the conformance binding's: a certification's are its subject's.
func ofCatalogue(r *v1alpha1.ConformanceReport) bool {
	return r != nil && (r.Profile == "" || r.Profile == plugins.ProfileCatalogue)
}

func ReadReport(file string) *v1alpha1.ConformanceReport {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var r v1alpha1.ConformanceReport
	if json.Unmarshal(data, &r) != nil {
		return nil
	}
	return &r
}
