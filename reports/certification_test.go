package reports

import (
	"slices"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

func TestCertificationLevels(t *testing.T) {
	res := func(id string, state v1alpha1.State, features ...string) v1alpha1.Result {
		return v1alpha1.Result{ID: id, Level: v1alpha1.LevelCore, State: state, Features: features}
	}
	tests := []struct {
		name         string
		results      []v1alpha1.Result
		interrupted  bool
		level        string
		passed, nots []string
		failed       []string
	}{
		{name: "every check passed", level: v1alpha1.LevelConformant, passed: []string{"Core", "Discovery"},
			results: []v1alpha1.Result{res("PLUG-001", v1alpha1.StatePassed), res("PLUG-005", v1alpha1.StatePassed, "Discovery")}},
		{name: "a feature not declared", level: v1alpha1.LevelConformant, passed: []string{"Core"}, nots: []string{"Discovery"},
			results: []v1alpha1.Result{res("PLUG-001", v1alpha1.StatePassed), res("PLUG-005", v1alpha1.StateNotSupported, "Discovery")}},
		{name: "a declared feature failed", level: v1alpha1.LevelPartiallyConformant, passed: []string{"Core"}, failed: []string{"Discovery"},
			results: []v1alpha1.Result{res("PLUG-001", v1alpha1.StatePassed), res("PLUG-005", v1alpha1.StateFailed, "Discovery")}},
		{name: "a Core check failed", level: v1alpha1.LevelNotConformant, passed: []string{"Discovery"}, failed: []string{"Core"},
			results: []v1alpha1.Result{res("PLUG-001", v1alpha1.StateFailed), res("PLUG-005", v1alpha1.StatePassed, "Discovery")}},
		{name: "interrupted", level: v1alpha1.LevelNotCertified, interrupted: true, passed: []string{"Core"},
			results: []v1alpha1.Result{res("PLUG-001", v1alpha1.StatePassed)}},
		{name: "a Core check filtered out", level: v1alpha1.LevelNotCertified,
			results: []v1alpha1.Result{res("PLUG-001", v1alpha1.StatePassed), res("PLUG-002", v1alpha1.StateSkipped)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &v1alpha1.ConformanceReport{Profile: ProfilePlugin, Results: tt.results, Interrupted: tt.interrupted,
				Subject: v1alpha1.Subject{Plugins: []v1alpha1.Plugin{{Name: "mine-v1", Image: "mine:1"}}}}
			Finalize(r)
			c := r.Certification
			if c == nil {
				t.Fatal("no certification for a plugin-profile report")
			}
			if c.Level != tt.level || !slices.Equal(c.Passed, orEmpty(tt.passed)) || !slices.Equal(c.NotSupported, orEmpty(tt.nots)) || !slices.Equal(c.Failed, orEmpty(tt.failed)) {
				t.Errorf("got %s, passed %v, failed %v, not supported %v; want %s, %v, %v, %v", c.Level, c.Passed, c.Failed, c.NotSupported, tt.level, tt.passed, tt.failed, tt.nots)
			}
			if tt.level == v1alpha1.LevelConformant && r.Summary.Verdict != v1alpha1.VerdictPassed {
				t.Errorf("a Conformant plugin's verdict is %s (exit %d)", r.Summary.Verdict, ExitCode(r))
			}
			if !strings.Contains(c.Badge, tt.level) || c.Subject != "mine-v1 (mine:1)" {
				t.Errorf("badge %q, subject %q", c.Badge, c.Subject)
			}
		})
	}
	catalogue := &v1alpha1.ConformanceReport{Profile: "catalogue", Results: []v1alpha1.Result{res("SMOKE-001", v1alpha1.StatePassed)}}
	if Finalize(catalogue); catalogue.Certification != nil {
		t.Error("a catalogue report has a certification")
	}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func TestExpect(t *testing.T) {
	r := &v1alpha1.ConformanceReport{Profile: ProfilePlugin, Results: []v1alpha1.Result{
		{ID: "PLUG-001", Level: v1alpha1.LevelCore, State: v1alpha1.StatePassed},
		{ID: "PLUG-004", Level: v1alpha1.LevelCore, State: v1alpha1.StateFailed},
	}}
	Finalize(r)
	if p := Expect(r, v1alpha1.LevelNotConformant, []string{"PLUG-004"}); len(p) != 0 {
		t.Errorf("the expected outcome: %v", p)
	}
	if p := Expect(r, v1alpha1.LevelConformant, nil); len(p) != 2 {
		t.Errorf("another level and no failure expected: %v, want two problems", p)
	}
	if p := Expect(&v1alpha1.ConformanceReport{}, v1alpha1.LevelConformant, nil); len(p) != 1 {
		t.Errorf("a report without certification: %v", p)
	}
}
