package reports

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

func selfTestKeys(sts []v1alpha1.SelfTestResult) []string {
	out := []string{}
	for _, st := range sts {
		out = append(out, st.CheckID+"@"+st.Witness)
	}
	return out
}

func TestRecordSelfTest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	miss := selfTest("GEN-001", wEnv, "fail", v1alpha1.StatePassed, false)
	miss.Message = "passed | against\na witness"
	rec, err := OpenRecorder(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Record(result("GEN-001", v1alpha1.StatePassed)); err != nil {
		t.Fatal(err)
	}
	if err := rec.RecordSelfTest(miss); err != nil {
		t.Fatal(err)
	}
	if err := rec.Record(result("GEN-002", v1alpha1.StateFailed)); err != nil {
		t.Fatal(err)
	}
	if err := rec.RecordSelfTest(selfTest("GEN-001", wDrops, "fail", v1alpha1.StateFailed, true)); err != nil {
		t.Fatal(err)
	}
	rec.Close()
	if err := rec.RecordSelfTest(miss); err == nil {
		t.Error("RecordSelfTest after Close succeeded")
	}

	// Each self-test line is {"selfTest":{...}}; plain result lines are
	// unchanged, so files from before self-tests read the same.
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("file has %d lines, want 4", len(lines))
	}
	var wrapped map[string]v1alpha1.SelfTestResult
	if err := json.Unmarshal([]byte(lines[1]), &wrapped); err != nil || len(wrapped) != 1 ||
		!reflect.DeepEqual(wrapped["selfTest"], miss) {
		t.Errorf("self-test line = %s, want {\"selfTest\":...} only (err %v)", lines[1], err)
	}
	var plain v1alpha1.Result
	if err := json.Unmarshal([]byte(lines[0]), &plain); err != nil || !strings.HasPrefix(lines[0], `{"id":"GEN-001"`) {
		t.Errorf("result line = %s, want a bare result (err %v)", lines[0], err)
	}

	results, selfTests, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"GEN-001", "GEN-002"}; !slices.Equal(ids(results), want) {
		t.Errorf("results = %v, want %v", ids(results), want)
	}
	if want := []string{"GEN-001@" + wEnv, "GEN-001@" + wDrops}; !slices.Equal(selfTestKeys(selfTests), want) {
		t.Errorf("self-tests = %v, want %v", selfTestKeys(selfTests), want)
	}
	if !reflect.DeepEqual(selfTests[0], miss) {
		t.Errorf("round trip:\n got %+v\nwant %+v", selfTests[0], miss)
	}

	only, err := ReadResults(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(only, results) {
		t.Errorf("ReadResults = %v, want only the results %v", ids(only), ids(results))
	}
}

func TestReadAll(t *testing.T) {
	stLine := func(check, witness string, observed v1alpha1.State) string {
		return fmt.Sprintf(`{"selfTest":{"checkID":%q,"witness":%q,"expected":"fail","observed":%q,"ok":%v,"message":%q,"durationSeconds":1}}`,
			check, witness, observed, observed == v1alpha1.StateFailed, "from "+string(observed)) + "\n"
	}
	resLine := `{"id":"a","title":"t","area":"a","level":"Core","state":"passed","durationSeconds":1,"startedAt":"2025-11-21T18:00:00Z","message":"from passed"}` + "\n"
	tests := []struct {
		name     string
		content  *string
		wantIDs  []string
		wantST   []string
		wantObs  map[string]v1alpha1.State
		wantErrs bool
	}{
		{name: "missing file", wantIDs: []string{}, wantST: []string{}},
		{name: "results only (an old file)", content: ptr(resLine), wantIDs: []string{"a"}, wantST: []string{}},
		{name: "self-tests only", content: ptr(stLine("c1", "w1", "failed")), wantIDs: []string{}, wantST: []string{"c1@w1"}},
		{
			name:    "last record per check and witness wins in first position",
			content: ptr(stLine("c1", "w1", "passed") + stLine("c1", "w2", "failed") + resLine + stLine("c1", "w1", "failed")),
			wantIDs: []string{"a"}, wantST: []string{"c1@w1", "c1@w2"},
			wantObs: map[string]v1alpha1.State{"c1@w1": v1alpha1.StateFailed, "c1@w2": v1alpha1.StateFailed},
		},
		{
			name:    "same witness, different checks are distinct",
			content: ptr(stLine("c2", "w1", "failed") + stLine("c1", "w1", "passed")),
			wantIDs: []string{}, wantST: []string{"c2@w1", "c1@w1"},
		},
		{
			name:    "truncated last self-test line is dropped",
			content: ptr(resLine + stLine("c1", "w1", "failed") + `{"selfTest":{"checkID":"c2","wit`),
			wantIDs: []string{"a"}, wantST: []string{"c1@w1"},
		},
		{
			name:    "complete last self-test line without newline is kept",
			content: ptr(resLine + strings.TrimSuffix(stLine("c1", "w1", "failed"), "\n")),
			wantIDs: []string{"a"}, wantST: []string{"c1@w1"},
		},
		{name: "corrupt middle self-test line is an error", content: ptr(`{"selfTest":{"checkID":3}}` + "\n" + resLine), wantErrs: true},
		{name: "null self-test is an error", content: ptr(`{"selfTest":null}` + "\n" + resLine), wantErrs: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "results.jsonl")
			if tt.content != nil {
				if err := os.WriteFile(path, []byte(*tt.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			results, selfTests, err := ReadAll(path)
			if _, rerr := ReadResults(path); (rerr != nil) != (err != nil) {
				t.Errorf("ReadResults error %v, ReadAll error %v: they must agree", rerr, err)
			}
			if tt.wantErrs {
				if err == nil {
					t.Fatalf("want an error, got %v %v", ids(results), selfTestKeys(selfTests))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if results == nil || selfTests == nil {
				t.Error("ReadAll returned a nil slice, want empty ones")
			}
			if !slices.Equal(ids(results), tt.wantIDs) {
				t.Errorf("results = %v, want %v", ids(results), tt.wantIDs)
			}
			if !slices.Equal(selfTestKeys(selfTests), tt.wantST) {
				t.Errorf("self-tests = %v, want %v", selfTestKeys(selfTests), tt.wantST)
			}
			for _, st := range selfTests {
				key := st.CheckID + "@" + st.Witness
				if want, ok := tt.wantObs[key]; ok && st.Observed != want {
					t.Errorf("%s observed = %s, want %s", key, st.Observed, want)
				}
				if st.Message != "from "+string(st.Observed) {
					t.Errorf("%s: message %q does not belong to observed %s", key, st.Message, st.Observed)
				}
			}
		})
	}
}

// Results and self-test results recorded concurrently never interleave, and
// a torn self-test tail is repaired on the next open.
func TestRecordSelfTestConcurrentAndTorn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	rec, err := OpenRecorder(path)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("y", 8192)
	const workers, each = 8, 20
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				st := selfTest(fmt.Sprintf("C%02d", i), fmt.Sprintf("broken/w%02d", w), "fail", v1alpha1.StateFailed, true)
				st.Message = long
				if err := rec.RecordSelfTest(st); err != nil {
					t.Error(err)
				}
				if err := rec.Record(result(fmt.Sprintf("R%02d-%02d", w, i), v1alpha1.StatePassed)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	rec.Close()

	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"selfTest":{"checkID":"torn","wi`)
	f.Close()
	rec, err = OpenRecorder(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.RecordSelfTest(selfTest("Z", "broken/last", "pass", v1alpha1.StatePassed, true)); err != nil {
		t.Fatal(err)
	}
	rec.Close()

	results, selfTests, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != workers*each || len(selfTests) != workers*each+1 {
		t.Errorf("read %d results and %d self-tests, want %d and %d", len(results), len(selfTests), workers*each, workers*each+1)
	}
	if last := selfTests[len(selfTests)-1]; last.CheckID != "Z" {
		t.Errorf("last self-test = %+v, want the one recorded after the repair", last)
	}
}
