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

	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
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
	if os.Getenv("CMP_CONFORMANCE_SOURCE_E2E") != "embedded" {
		t.Skip("CMP_CONFORMANCE_SOURCE_E2E is not embedded (make source-check sets it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	root, bin, src := sourceUnderTest(ctx, t)
	// The tree as released passes the check: what fails below is the change.
	if state, msg, _ := env007(ctx, t, bin, root, "--argocd-source", src); state != v1alpha1.StatePassed {
		t.Fatalf("ENV-007 on the unchanged tree: %s: %s", state, msg)
	}
	dropAppNameIn(t, src)
	state, msg, version := env007(ctx, t, bin, root, "--argocd-source", src)
	if !strings.HasPrefix(version, toolchain.ArgoCDCurrent+toolchain.SourceTag) {
		t.Errorf("the version under test is %q, not the checkout's", version)
	}
	if state != v1alpha1.StateFailed || !strings.Contains(msg, "ARGOCD_APP_NAME") {
		t.Errorf("ENV-007 %s: %s; want failed, naming ARGOCD_APP_NAME", state, msg)
	}
}

// onKind and sidecarImage run ENV-007 on kind, whose plugins are images:
// the parameterized role's (make plugin-images builds it).
const onKind, sidecarImage = "--runtime=kind", "--plugin-image=parameterized=cmp-conformance/sidecar:dev"

// TestArgoCDImageChangeIsCaught is the same on kind: the changed tree
// built with --argocd-source (its image built from it), then that image
// given with --argocd-image under the release's own manifests; both fail
// ENV-007 for the change, and the release's image under the same manifests
// passes it, so the image is what is judged. `make source-check
// SOURCE_RUNTIME=kind` runs it (the kind node image cached: minutes).
func TestArgoCDImageChangeIsCaught(t *testing.T) {
	if os.Getenv("CMP_CONFORMANCE_SOURCE_E2E") != "kind" {
		t.Skip("CMP_CONFORMANCE_SOURCE_E2E is not kind (make source-check SOURCE_RUNTIME=kind sets it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	root, bin, src := sourceUnderTest(ctx, t)
	dropAppNameIn(t, src)
	state, msg, rep := env007Report(ctx, t, bin, root, onKind, sidecarImage, "--argocd-source", src)
	version, image := rep.Environment.ArgoCDVersion, rep.Environment.ArgoCDImage
	if !strings.HasPrefix(version, toolchain.ArgoCDCurrent+toolchain.SourceTag) || !strings.HasPrefix(image, environment.SourceImage(version)+" (sha256:") {
		t.Errorf("the Argo CD under test is %q in image %q, not the checkout's", version, image)
	}
	if state != v1alpha1.StateFailed || !strings.Contains(msg, "ARGOCD_APP_NAME") {
		t.Errorf("ENV-007 on kind, from the checkout: %s: %s; want failed, naming ARGOCD_APP_NAME", state, msg)
	}
	given := environment.SourceImage(version)
	state, msg, rep = env007Report(ctx, t, bin, root, onKind, sidecarImage, "--argocd-version", toolchain.ArgoCDCurrent, "--argocd-image", given)
	if rep.Environment.ArgoCDVersion != toolchain.ArgoCDCurrent || !strings.HasPrefix(rep.Environment.ArgoCDImage, given+" (sha256:") {
		t.Errorf("--argocd-image: the report names %s in image %q, want %s in %s", rep.Environment.ArgoCDVersion, rep.Environment.ArgoCDImage, toolchain.ArgoCDCurrent, given)
	}
	if state != v1alpha1.StateFailed || !strings.Contains(msg, "ARGOCD_APP_NAME") {
		t.Errorf("ENV-007 on kind with --argocd-image %s: %s: %s; want failed, naming ARGOCD_APP_NAME", given, state, msg)
	}
	if state, msg, _ = env007Report(ctx, t, bin, root, onKind, sidecarImage, "--argocd-version", toolchain.ArgoCDCurrent); state != v1alpha1.StatePassed {
		t.Errorf("ENV-007 on kind with the release's image: %s: %s", state, msg)
	}
}

// sourceUnderTest makes a checkout of the current release (src) and builds
// the harness (bin) from this checkout of it (root).
func sourceUnderTest(ctx context.Context, t *testing.T) (root, bin, src string) {
	t.Helper()
	root = checkoutRoot(t)
	tc, err := toolchain.New(toolchain.Options{Progress: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	src = filepath.Join(t.TempDir(), "argo-cd")
	if err := tc.Checkout(ctx, toolchain.ArgoCDCurrent, src); err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(t.TempDir(), "cmp-conformance")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/cmp-conformance")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the harness: %v\n%s", err, out)
	}
	return root, bin, src
}

// dropAppNameIn makes the test's change in the checkout src.
func dropAppNameIn(t *testing.T, src string) {
	t.Helper()
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
}

// env007 runs ENV-007 with the run's flags args and returns its state,
// message and the version under test.
func env007(ctx context.Context, t *testing.T, bin, root string, args ...string) (v1alpha1.State, string, string) {
	t.Helper()
	state, msg, rep := env007Report(ctx, t, bin, root, args...)
	return state, msg, rep.Environment.ArgoCDVersion
}

// env007Report runs ENV-007 with the run's flags args and returns its
// state, message and report. The run's exit status must say the same: 1
// when the check failed, else 3 (passed, but narrowed to one check).
func env007Report(ctx context.Context, t *testing.T, bin, root string, args ...string) (v1alpha1.State, string, *v1alpha1.ConformanceReport) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	run := exec.CommandContext(ctx, bin, append(append([]string{"run"}, args...), "--label-filter", "ENV-007", "--output", out)...)
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
			return r.State, r.Message, rep
		}
	}
	t.Fatal("ENV-007 did not run")
	return "", "", nil
}
