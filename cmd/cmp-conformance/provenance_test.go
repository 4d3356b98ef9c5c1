package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/plugins"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
	"github.com/cmp-conformance/cmp-conformance/suites/runner"
)

// A bring-up that failed before it began leaves no environment: the report
// still names the plugins, and nothing panics (a share once died so, and its
// error was lost).
func TestDescribeEnvironmentWithoutEnvironment(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Skip(err)
	}
	plan, err := plugins.CataloguePlan(root, nil, false, plugins.ProfileCatalogue)
	if err != nil {
		t.Fatal(err)
	}
	rep := &v1alpha1.ConformanceReport{}
	runner.DescribeEnvironment(rep, nil, plan.Bindings)
	if len(rep.Subject.Plugins) == 0 {
		t.Error("no plugins described")
	}
	if !slices.IsSortedFunc(rep.Subject.Plugins, func(a, b v1alpha1.Plugin) int { return strings.Compare(a.Name, b.Name) }) {
		t.Error("plugins are not in name order: the report would change run to run")
	}
}

// An extension's UI files are not judged yet: the report says so beside its
// kinds (which the certification line shows) and in its notes.
// An extension's UI files are part of its subject (EXT-006..009 judge
// them); nothing says them unjudged any more.
func TestUIFilesAreListed(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"example.com/Thing/health.lua": "return {status = \"Healthy\"}\n",
		"ui/extension-thing.js":        "window.extensionsAPI.registerResourceExtension(function () { return null }, 'example.com', 'Thing', 'Thing')\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sub, err := plugins.LoadSubject(conformance.RoleExtension, dir)
	if err != nil {
		t.Fatal(err)
	}
	rep := &v1alpha1.ConformanceReport{}
	runner.DescribeEnvironment(rep, nil, []conformance.Binding{{Name: "certify", Subjects: map[conformance.Role]conformance.Subject{conformance.RoleExtension: sub}}})
	if len(rep.Subject.Extensions) != 1 || !slices.Contains(rep.Subject.Extensions[0].Kinds, "ui/extension-thing.js") {
		t.Errorf("subject %+v, want the UI file listed", rep.Subject.Extensions)
	}
	if slices.ContainsFunc(rep.Environment.Notes, func(n string) bool { return strings.Contains(n, "not judged") }) {
		t.Errorf("notes %q say a UI file is not judged", rep.Environment.Notes)
	}
}
