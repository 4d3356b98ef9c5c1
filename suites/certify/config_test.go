package certify

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/reports"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

func TestValidateRefusesBadConfigs(t *testing.T) {
	plain := filepath.Join("..", "..", "plugins", "plain")
	samples := filepath.Join(plain, "certify.yaml")
	for name, tt := range map[string]struct {
		c    Config
		want string
	}{
		"no subject":           {c: Config{Samples: samples}, want: "name what to certify"},
		"extension and plugin": {c: Config{Extension: filepath.Join("..", "..", "plugins", "extension"), PluginDir: plain}, want: "certified alone"},
		"not an extension":     {c: Config{Extension: plain}, want: plain},
		"two subjects":         {c: Config{Image: "x:1", PluginDir: plain, Samples: samples}, want: "choose one"},
		"no plugin.yaml":       {c: Config{PluginDir: t.TempDir(), Samples: samples}, want: "must hold plugin.yaml"},
		"no samples file":      {c: Config{PluginDir: plain, Samples: filepath.Join(t.TempDir(), "certify.yaml")}, want: "certify --init"},
		"config alone":         {c: Config{PluginDir: plain, PluginYAML: "plugin.yaml", Samples: samples}, want: "goes with an image"},
	} {
		if err := tt.c.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Validate() = %v, want %q", name, err, tt.want)
		}
	}
}

// An extension is bound alone in the extension role, without samples; the
// run is of the extension profile (the checks of area extensions).
func TestLoadExtension(t *testing.T) {
	dir := filepath.Join("..", "..", "plugins", "extension")
	c := Config{Extension: dir, Samples: filepath.Join(t.TempDir(), "absent.yaml")}
	if err := c.Validate(); err != nil {
		t.Fatalf("Validate: %v (an extension needs no certify.yaml)", err)
	}
	b, err := Load(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	sub, ok := b.Subjects[conformance.RoleExtension]
	if len(b.Subjects) != 1 || !ok || sub.Extension == nil || len(sub.Extension.Kinds) == 0 {
		t.Fatalf("binding %+v, want the extension alone in role %s", b.Subjects, conformance.RoleExtension)
	}
	if c.Profile() != reports.ProfileExtension || subjectName(c) != "extension" {
		t.Errorf("profile %q, name %q", c.Profile(), subjectName(c))
	}
	for _, ch := range c.Checks() {
		if ch.Area != conformance.Extensions {
			t.Errorf("the extension profile runs %s (area %s)", ch.ID, ch.Area)
		}
	}
	if len(c.Checks()) == 0 {
		t.Error("the extension profile has no check")
	}
}

// Load binds a folder plugin with its samples, the certification's claims
// added to its features; a missing image is an error that says what to do.
func TestLoad(t *testing.T) {
	plain := filepath.Join("..", "..", "plugins", "plain")
	b, err := Load(context.Background(), Config{PluginDir: plain, Samples: filepath.Join(plain, "certify.yaml"), Output: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if b.Name != bindingName || b.Certification == nil || b.Witness {
		t.Errorf("binding = %+v", b)
	}
	sub, ok := b.Subjects["subject"]
	if !ok || sub.Plugin.Name == "" {
		t.Fatalf("no subject in %+v", b.Subjects)
	}
	for _, f := range b.Certification.Claims() {
		if !sub.Plugin.Has(string(f)) {
			t.Errorf("claimed feature %s is not the subject's", f)
		}
	}
	if _, err := exec.LookPath("docker"); err != nil {
		return
	}
	_, err = Load(context.Background(), Config{Image: "cmp-conformance-test/absent:never", Samples: filepath.Join(plain, "certify.yaml"), Output: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "not present on this machine") {
		t.Errorf("Load of a missing image = %v", err)
	}
}

// The author's test fails unless the run reaches the level it wants:
// Conformant by default, so a partial or Not Certified run does not pass.
func TestLevelProblem(t *testing.T) {
	rep := func(level string, reasons ...string) *v1alpha1.ConformanceReport {
		return &v1alpha1.ConformanceReport{Certification: &v1alpha1.Certification{Level: level}, Summary: v1alpha1.Summary{Reasons: reasons}}
	}
	if p := levelProblem(rep(v1alpha1.LevelConformant), v1alpha1.LevelConformant); p != "" {
		t.Errorf("the level wanted: %q", p)
	}
	p := levelProblem(rep(v1alpha1.LevelNotCertified, "Core checks not-applicable: PLUG-008"), v1alpha1.LevelConformant)
	if !strings.Contains(p, "the plugin is Not Certified, want Conformant") || !strings.Contains(p, "PLUG-008") {
		t.Errorf("a Not Certified run: %q", p)
	}
	if p := levelProblem(nil, v1alpha1.LevelConformant); !strings.Contains(p, "no check of the profile ran") {
		t.Errorf("nothing ran: %q", p)
	}
	if p := levelProblem(rep(v1alpha1.LevelNotConformant, "PLUG-004 failed"), v1alpha1.LevelNotConformant); p != "" {
		t.Errorf("an author expecting Not Conformant (a witness): %q", p)
	}
	if err := (Config{Image: "x:1", Level: "Gold"}).withDefaults().subjectProblem(); err == nil || !strings.Contains(err.Error(), `Config.Level "Gold"`) {
		t.Errorf("an unknown level: %v", err)
	}
}
