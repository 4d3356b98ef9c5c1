package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
	"github.com/cmp-conformance/cmp-conformance/reports"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// dropAppName is the deliberate change this test makes to Argo CD, in its
// own copy: the repo-server stops sending ARGOCD_APP_NAME to plugins.
const dropAppName = "\t\t&v1alpha1.EnvEntry{Name: \"ARGOCD_APP_NAME\", Value: q.AppName},\n\t\t&v1alpha1.EnvEntry{Name: \"ARGOCD_APP_NAMESPACE\", Value: q.Namespace},\n"

// TestArgoCDSourceChangeIsCaught: a checkout of the current release with one
// change to the CMP code path, built with --argocd-source, is judged as the
// version under test, and the check that covers the change fails for it.
// `make source-check` runs it (a build of Argo CD from the tree: minutes).
func TestArgoCDSourceChangeIsCaught(t *testing.T) {
	if os.Getenv("CMP_CONFORMANCE_SOURCE_E2E") == "" {
		t.Skip("CMP_CONFORMANCE_SOURCE_E2E is not set (make source-check sets it)")
	}
	root := checkoutRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	tc, err := toolchain.New(toolchain.Options{Progress: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "argo-cd")
	if err := tc.Checkout(ctx, toolchain.ArgoCDCurrent, src); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(src, "reposerver", "repository", "repository.go")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), dropAppName) {
		t.Fatalf("%s no longer builds the plugin env as this test expects: update dropAppName", file)
	}
	changed := strings.Replace(string(data), dropAppName, "\t\t&v1alpha1.EnvEntry{Name: \"ARGOCD_APP_NAMESPACE\", Value: q.Namespace},\n", 1)
	if err := os.WriteFile(file, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "cmp-conformance")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/cmp-conformance")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the harness: %v\n%s", err, out)
	}
	out := filepath.Join(t.TempDir(), "out")
	run := exec.CommandContext(ctx, bin, "run", "--argocd-source", src, "--label-filter", "ENV-007", "--output", out)
	run.Dir, run.Stdout, run.Stderr = root, os.Stderr, os.Stderr
	var ee *exec.ExitError
	if err := run.Run(); !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("the run of the changed Argo CD: %v, want exit status 1 (a check failed)", err)
	}
	rep, err := reports.Read(filepath.Join(out, "reports", "latest", reports.ReportJSON))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rep.Environment.ArgoCDVersion, toolchain.ArgoCDCurrent+toolchain.SourceTag) {
		t.Errorf("the version under test is %q, not the checkout's", rep.Environment.ArgoCDVersion)
	}
	for _, r := range rep.Results {
		if r.ID == "ENV-007" {
			if r.State != v1alpha1.StateFailed || !strings.Contains(r.Message, "ARGOCD_APP_NAME") {
				t.Errorf("ENV-007 %s: %s; want failed, naming ARGOCD_APP_NAME", r.State, r.Message)
			}
			return
		}
	}
	t.Error("ENV-007 did not run")
}
