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
	bin := filepath.Join(t.TempDir(), "cmp-conformance")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/cmp-conformance")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the harness: %v\n%s", err, out)
	}
	// The tree as released passes the check: what fails below is the change.
	if state, msg, _ := env007(ctx, t, bin, root, src); state != v1alpha1.StatePassed {
		t.Fatalf("ENV-007 on the unchanged tree: %s: %s", state, msg)
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
	state, msg, version := env007(ctx, t, bin, root, src)
	if !strings.HasPrefix(version, toolchain.ArgoCDCurrent+toolchain.SourceTag) {
		t.Errorf("the version under test is %q, not the checkout's", version)
	}
	if state != v1alpha1.StateFailed || !strings.Contains(msg, "ARGOCD_APP_NAME") {
		t.Errorf("ENV-007 %s: %s; want failed, naming ARGOCD_APP_NAME", state, msg)
	}
}

// env007 runs ENV-007 on the Argo CD built from src and returns its state,
// message and the version under test. The run's exit status must say the
// same: 1 when the check failed, else 3 (passed, but narrowed to one check).
func env007(ctx context.Context, t *testing.T, bin, root, src string) (v1alpha1.State, string, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	run := exec.CommandContext(ctx, bin, "run", "--argocd-source", src, "--label-filter", "ENV-007", "--output", out)
	run.Dir, run.Stdout, run.Stderr = root, os.Stderr, os.Stderr
	code := 0
	var ee *exec.ExitError
	if err := run.Run(); errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	rep, err := reports.Read(filepath.Join(out, "reports", "latest", reports.ReportJSON))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.ID == "ENV-007" {
			if want := map[bool]int{true: 1, false: 3}[r.State == v1alpha1.StateFailed]; code != want {
				t.Errorf("ENV-007 %s, and the run exited %d, want %d", r.State, code, want)
			}
			return r.State, r.Message, rep.Environment.ArgoCDVersion
		}
	}
	t.Fatal("ENV-007 did not run")
	return "", "", ""
}
