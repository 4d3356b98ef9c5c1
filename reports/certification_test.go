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
	t.Run("an extension", func(t *testing.T) {
		r := &v1alpha1.ConformanceReport{Profile: ProfileExtension, Results: []v1alpha1.Result{res("EXT-001", v1alpha1.StatePassed), res("EXT-003", v1alpha1.StateFailed)},
			Subject: v1alpha1.Subject{Plugins: []v1alpha1.Plugin{}, Extensions: []v1alpha1.Extension{{Name: "mine", Kinds: []string{"example.com/Thing"}}}}}
		Finalize(r)
		c := r.Certification
		if c == nil || c.Level != v1alpha1.LevelNotConformant || c.Subject != "extension mine (example.com/Thing)" || !strings.Contains(c.Badge, "extension profile") {
			t.Errorf("certification %+v, want Not Conformant of extension mine, badge of the extension profile", c)
		}
		// A check the extension gives nothing to judge does not hold the
		// level back, and the badge says it was not judged.
		r.Results = []v1alpha1.Result{res("EXT-001", v1alpha1.StatePassed), res("EXT-002", v1alpha1.StateNotApplicable)}
		Finalize(r)
		if c := r.Certification; c.Level != v1alpha1.LevelConformant || !strings.Contains(c.Badge, "not applicable (nothing of the extension to judge): EXT-002") {
			t.Errorf("with EXT-002 not applicable: %s, badge %q", c.Level, c.Badge)
		}
	})
	t.Run("nothing ran", func(t *testing.T) {
		r := &v1alpha1.ConformanceReport{Profile: ProfilePlugin}
		Finalize(r)
		if r.Certification.Level != v1alpha1.LevelNotCertified || ExitCode(r) == 0 {
			t.Errorf("a run where nothing ran: %s, exit %d", r.Certification.Level, ExitCode(r))
		}
	})
	t.Run("a Core check the runtime cannot run", func(t *testing.T) {
		limited := v1alpha1.Result{ID: "PLUG-008", Level: v1alpha1.LevelCore, State: v1alpha1.StateNotApplicable, RuntimeLimited: true,
			Message: "the plugins' sockets are in the repo-server's pod, not on this host"}
		tooOld := v1alpha1.Result{ID: "PLUG-013", Level: v1alpha1.LevelCore, State: v1alpha1.StateNotApplicable, Message: "needs Argo CD >= 2.9"}
		r := &v1alpha1.ConformanceReport{Profile: ProfilePlugin, Environment: v1alpha1.Environment{Runtime: "kind"},
			Results: []v1alpha1.Result{res("PLUG-001", v1alpha1.StatePassed), limited, tooOld}}
		Finalize(r)
		c := r.Certification
		if c.Level != v1alpha1.LevelNotCertified || len(c.NotRun) != 1 || !strings.Contains(c.NotRun[0], "PLUG-008: the plugins' sockets") ||
			!strings.Contains(c.NotRun[0], "the kind runtime cannot run it; the embedded runtime does") {
			t.Errorf("level %s, not run %q: want Not Certified naming PLUG-008, why and where it runs", c.Level, c.NotRun)
		}
		if !strings.Contains(c.Badge, "Not Certified") || !strings.Contains(c.Badge, "not run: PLUG-008") {
			t.Errorf("badge %q", c.Badge)
		}
		if ExitCode(r) != 3 {
			t.Errorf("exit %d, want 3 (partial), in agreement with the level", ExitCode(r))
		}
		// A check that applies to no such version is not of the profile.
		r = &v1alpha1.ConformanceReport{Profile: ProfilePlugin, Results: []v1alpha1.Result{res("PLUG-001", v1alpha1.StatePassed), tooOld}}
		if Finalize(r); r.Certification.Level != v1alpha1.LevelConformant || ExitCode(r) != 0 {
			t.Errorf("a check of newer versions only: %s, exit %d", r.Certification.Level, ExitCode(r))
		}
	})
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

// A certification's page is headed by the plugin's level, and lists what
// did not run.
func TestCertificationPageHeadedByLevel(t *testing.T) {
	r := &v1alpha1.ConformanceReport{Profile: ProfilePlugin, Environment: v1alpha1.Environment{Runtime: "kind"},
		Subject: v1alpha1.Subject{Plugins: []v1alpha1.Plugin{{Name: "mine-v1", Image: "mine:1"}}},
		Results: []v1alpha1.Result{{ID: "PLUG-001", Level: v1alpha1.LevelCore, State: v1alpha1.StatePassed},
			{ID: "PLUG-008", Level: v1alpha1.LevelCore, State: v1alpha1.StateNotApplicable, RuntimeLimited: true, Message: "the sockets are in the pod"}}}
	Finalize(r)
	page, err := renderHTML(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<h1>mine-v1 (mine:1) is <span class="verdict l-not-certified" id="level">Not Certified</span></h1>`, `<ul id="not-run"><li>PLUG-008: the sockets are in the pod`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
}
