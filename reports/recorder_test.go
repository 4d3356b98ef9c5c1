package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

func result(id string, state v1alpha1.State) v1alpha1.Result {
	return v1alpha1.Result{
		ID: id, Title: "title " + id, Area: "generate", Level: v1alpha1.LevelCore,
		State: state, DurationSeconds: 1.5,
		StartedAt: time.Date(2025, 11, 21, 18, 0, 0, 0, time.UTC),
	}
}

func ids(rs []v1alpha1.Result) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

func TestRecorderAppendsAcrossOpens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested", "dir", "results.jsonl")
	first := result("A-1", v1alpha1.StateFailed)
	first.Message = "boom | with pipe\nsecond line"
	first.Upstream = []string{"argoproj/argo-cd#8145"}
	first.Attempts = 2

	rec, err := OpenRecorder(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []v1alpha1.Result{first, result("A-2", v1alpha1.StatePassed)} {
		if err := rec.Record(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rec.Record(result("late", v1alpha1.StatePassed)); err == nil {
		t.Error("Record after Close succeeded")
	}

	rec, err = OpenRecorder(path) // a second open must append, not truncate
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Record(result("A-0", v1alpha1.StateSkipped)); err != nil {
		t.Fatal(err)
	}
	rec.Close()

	got, err := ReadResults(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"A-1", "A-2", "A-0"}; !slices.Equal(ids(got), want) {
		t.Fatalf("ids = %v, want %v", ids(got), want)
	}
	if !reflect.DeepEqual(got[0], first) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got[0], first)
	}
}

func TestRecorderConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	rec, err := OpenRecorder(path)
	if err != nil {
		t.Fatal(err)
	}
	const workers, each = 16, 25
	// Long lines make any interleaving of concurrent writes show up as a
	// corrupt line, which ReadResults reports as an error.
	long := strings.Repeat("x", 8192)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				r := result(fmt.Sprintf("W%02d-%03d", w, i), v1alpha1.StatePassed)
				r.Message = long
				if err := rec.Record(r); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	rec.Close()

	got, err := ReadResults(path)
	if err != nil {
		t.Fatal(err) // a corrupt middle line is an error
	}
	if len(got) != workers*each {
		t.Fatalf("read %d results, want %d", len(got), workers*each)
	}
	data, _ := os.ReadFile(path)
	if n := strings.Count(string(data), "\n"); n != workers*each {
		t.Errorf("file has %d lines, want %d", n, workers*each)
	}
}

func TestReadResults(t *testing.T) {
	line := func(id string, state v1alpha1.State) string {
		r := result(id, state)
		return fmt.Sprintf(`{"id":%q,"title":"t","area":"a","level":"Core","state":%q,"durationSeconds":1,"startedAt":"2025-11-21T18:00:00Z","message":%q}`,
			r.ID, r.State, "from "+string(state)) + "\n"
	}
	tests := []struct {
		name      string
		content   *string // nil: no file
		wantIDs   []string
		wantState map[string]v1alpha1.State
		wantErr   bool
	}{
		{name: "missing file", wantIDs: []string{}},
		{name: "empty file", content: ptr(""), wantIDs: []string{}},
		{name: "complete lines", content: ptr(line("a", "passed") + line("b", "failed")), wantIDs: []string{"a", "b"}},
		{
			name:    "truncated last line is dropped",
			content: ptr(line("a", "passed") + line("b", "passed") + `{"id":"c","title":"cut sho`),
			wantIDs: []string{"a", "b"},
		},
		{
			name:    "complete last line without newline is kept",
			content: ptr(line("a", "passed") + strings.TrimSuffix(line("b", "passed"), "\n")),
			wantIDs: []string{"a", "b"},
		},
		{
			name:    "corrupt middle line is an error",
			content: ptr(line("a", "passed") + "{not json\n" + line("b", "passed")),
			wantErr: true,
		},
		{
			name:      "duplicate ID: last wins in first position",
			content:   ptr(line("b", "failed") + line("a", "passed") + line("b", "passed")),
			wantIDs:   []string{"b", "a"},
			wantState: map[string]v1alpha1.State{"b": v1alpha1.StatePassed, "a": v1alpha1.StatePassed},
		},
		{
			name:      "retried twice",
			content:   ptr(line("x", "failed") + line("x", "failed") + line("x", "skipped")),
			wantIDs:   []string{"x"},
			wantState: map[string]v1alpha1.State{"x": v1alpha1.StateSkipped},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "results.jsonl")
			if tt.content != nil {
				if err := os.WriteFile(path, []byte(*tt.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := ReadResults(path)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("want an error, got %v", ids(got))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Error("ReadResults returned nil, want an empty slice")
			}
			if !slices.Equal(ids(got), tt.wantIDs) {
				t.Errorf("ids = %v, want %v", ids(got), tt.wantIDs)
			}
			for _, r := range got {
				if want, ok := tt.wantState[r.ID]; ok && r.State != want {
					t.Errorf("%s state = %s, want %s", r.ID, r.State, want)
				}
				if r.Message != "from "+string(r.State) {
					t.Errorf("%s: message %q does not belong to state %s", r.ID, r.Message, r.State)
				}
			}
		})
	}
}

// A crash mid-write leaves a fragment; the next run must not glue its first
// record onto it.
func TestOpenRecorderRepairsTornTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	rec, err := OpenRecorder(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Record(result("a", v1alpha1.StatePassed)); err != nil {
		t.Fatal(err)
	}
	rec.Close()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id":"torn","ti`)
	f.Close()

	rec, err = OpenRecorder(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Record(result("b", v1alpha1.StatePassed)); err != nil {
		t.Fatal(err)
	}
	rec.Close()
	got, err := ReadResults(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b"}; !slices.Equal(ids(got), want) {
		t.Errorf("ids = %v, want %v", ids(got), want)
	}
}

func ptr[T any](v T) *T { return &v }
