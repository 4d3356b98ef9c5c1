package render

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
)

// e2e says whether the real Argo CD runs here: `make render-check` sets
// CMP_CONFORMANCE_RENDER_E2E once the toolchain is built, so there these
// tests never skip; elsewhere they skip rather than build Argo CD.
func e2e(t *testing.T) {
	if os.Getenv("CMP_CONFORMANCE_RENDER_E2E") == "" {
		t.Skip("CMP_CONFORMANCE_RENDER_E2E is not set (make render-check sets it)")
	}
}

// startPlain starts a Renderer with the plain reference plugin, its program
// built for the test.
func startPlain(t testing.TB, ctx context.Context) (*Renderer, argocd.Plugin) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./plugins/plain/cmd/cmp-plain")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building cmp-plain: %v\n%s", err, out)
	}
	p, err := argocd.LoadPlugin(filepath.Join(root, "plugins", "plain"))
	if err != nil {
		t.Fatal(err)
	}
	p.PathDirs = append(p.PathDirs, bin)
	r, err := Start(ctx, Options{ArgoCDVersion: os.Getenv("ARGOCD_VERSION"), Plugin: p, PortBase: 28100,
		Toolchain: toolchain.Options{NoBuild: os.Getenv("CMP_CONFORMANCE_RENDER_BUILD") == ""}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Error(err)
		}
	})
	return r, p
}

// TestRenderPlainSample: the plain sample renders through discovery as its
// golden file says, with Argo CD's tracking annotation of the application
// named; a folder the plugin refuses gives the plugin's own error.
func TestRenderPlainSample(t *testing.T) {
	e2e(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	r, p := startPlain(t, ctx)
	res, err := r.Render(ctx, Source{Folder: "../../plugins/plain/samples/basic", Path: ".", AppName: "render-test", Namespace: "team-a",
		Project: "default", KubeVersion: toolchain.KubernetesVersion, TrackingMethod: "annotation"}, p.FullName())
	if err != nil {
		t.Fatal(err)
	}
	if res.SourceType != "Plugin" || len(res.Manifests) != 2 {
		t.Fatalf("source type %s, %d manifests: want Plugin, 2 (a ConfigMap and a Deployment)", res.SourceType, len(res.Manifests))
	}
	all := strings.Join(res.Manifests, "\n")
	for _, want := range []string{`"kind":"ConfigMap"`, `"kind":"Deployment"`, `"argocd.argoproj.io/tracking-id":"render-test:`} {
		if !strings.Contains(all, want) {
			t.Errorf("the manifests lack %s:\n%s", want, all)
		}
	}
	if _, err := r.Render(ctx, Source{Folder: "../../plugins/plain/samples/empty", Path: ".", Named: true, AppName: "render-test", Namespace: "team-a",
		Project: "default", TrackingMethod: "annotation"}, p.FullName()); err == nil || !strings.Contains(err.Error(), "no YAML files") {
		t.Errorf("the empty sample: %v, want the plugin's error (no YAML files)", err)
	}
}

// BenchmarkRender measures one render with the Renderer up: each
// iteration commits a new repository, so no cache answers.
func BenchmarkRender(b *testing.B) {
	if os.Getenv("CMP_CONFORMANCE_RENDER_E2E") == "" {
		b.Skip("CMP_CONFORMANCE_RENDER_E2E is not set")
	}
	ctx := context.Background()
	r, p := startPlain(b, ctx)
	src := Source{Folder: "../../plugins/plain/samples/basic", Path: ".", AppName: "bench", Namespace: "default", Project: "default", TrackingMethod: "annotation"}
	for b.Loop() {
		if _, err := r.Render(ctx, src, p.FullName()); err != nil {
			b.Fatal(err)
		}
	}
}
