package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/plugins"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
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
