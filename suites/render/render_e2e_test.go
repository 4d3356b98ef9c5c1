package render

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
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
	return startPlainExplained(t, ctx, false)
}

// startPlainExplained is startPlain, with the tap of Options.Explain when
// explain is set.
func startPlainExplained(t testing.TB, ctx context.Context, explain bool) (*Renderer, argocd.Plugin) {
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
	r, err := Start(ctx, Options{ArgoCDVersion: os.Getenv("ARGOCD_VERSION"), Plugin: p, PortBase: 28100, Explain: explain,
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
	// The library form an author's go test uses: the sample's golden file.
	Golden(t, r, Source{Folder: "../../plugins/plain/samples/basic", Path: ".", AppName: "golden-test", Namespace: "team-a",
		Project: "default", TrackingMethod: "annotation"}, p.FullName(), "../../plugins/plain/samples/basic.golden.yaml")
	if _, err := r.Render(ctx, Source{Folder: "../../plugins/plain/samples/empty", Path: ".", Named: true, AppName: "render-test", Namespace: "team-a",
		Project: "default", TrackingMethod: "annotation"}, p.FullName()); err == nil || !strings.Contains(err.Error(), "no YAML files") {
		t.Errorf("the empty sample: %v, want the plugin's error (no YAML files)", err)
	}
}

// TestExplainPlainSample: through the tap, the render says which rule
// selected the sample (our reading and Argo CD's answer agree), what the
// plugin received, and keeps its working copy; a sample no plugin claims
// is explained by the same answers, with nothing generated.
func TestExplainPlainSample(t *testing.T) {
	e2e(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	r, p := startPlainExplained(t, ctx, true)
	src := Source{Folder: "../../plugins/plain/samples/basic", Path: ".", AppName: "explain-test", Namespace: "team-a",
		Project: "default", TrackingMethod: "annotation", Env: v1alpha1.Env{{Name: "REGION", Value: "eu"}}}
	if _, err := r.Render(ctx, src, p.FullName()); err != nil {
		t.Fatal(err)
	}
	e, err := r.Explain()
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Discovery) != 1 || e.Discovery[0].ArgoCD != "yes" || e.Discovery[0].OurReading != "matches cmp-plain.marker" {
		t.Errorf("discovery: %+v", e.Discovery)
	}
	rec := e.Received
	if rec == nil || rec.Objects != 2 || !slices.Contains(rec.Env, "ARGOCD_APP_NAME=explain-test") || !slices.Contains(rec.Env, "ARGOCD_ENV_REGION=eu") {
		t.Fatalf("received: %+v", rec.Env)
	}
	var names []string
	for _, f := range rec.Files {
		names = append(names, f.Path)
	}
	for _, want := range []string{"config.yaml", "deployment.yaml", "cmp-plain.marker"} {
		if !slices.ContainsFunc(names, func(n string) bool { return strings.TrimPrefix(n, "./") == want }) {
			t.Errorf("the plugin did not receive %s: %v", want, names)
		}
	}
	dir, err := e.Keep()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if _, err := os.Stat(filepath.Join(dir, "config.yaml")); err != nil {
		t.Errorf("the kept working copy lacks config.yaml: %v", err)
	}

	// The empty sample is claimed (it has the marker), and the plugin fails.
	src.Folder = "../../plugins/plain/samples/empty"
	if _, err := r.Render(ctx, src, p.FullName()); err == nil {
		t.Fatal("the empty sample rendered")
	}
	if e, err = r.Explain(); err != nil {
		t.Fatal(err)
	}
	if e.Received == nil || !strings.Contains(e.Received.Error, "no YAML files") || e.Received.Objects != 0 {
		t.Errorf("the failing render: received %+v", e.Received)
	}

	// A folder without the marker: no plugin claims it, and Argo CD renders
	// its YAML as a Directory source; a Loop's render says ErrUnclaimed.
	src.Folder = t.TempDir()
	if err := os.WriteFile(filepath.Join(src.Folder, "config.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: unclaimed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// With plugin env, the source asks for a plugin: Argo CD's own error.
	if _, err := r.Render(ctx, src, p.FullName()); err == nil || !strings.Contains(err.Error(), "could not find plugin supporting the given repository") {
		t.Fatalf("a folder no plugin claims, with plugin env: %v", err)
	}
	if e, err = r.Explain(); err != nil {
		t.Fatal(err)
	}
	if len(e.Discovery) != 1 || e.Discovery[0].ArgoCD != "no" || !strings.HasPrefix(e.Discovery[0].OurReading, "no file of") || e.Received != nil {
		t.Errorf("the unclaimed sample: discovery %+v, received %v", e.Discovery, e.Received != nil)
	}
	src.Env = nil
	res, err := r.Render(ctx, src, p.FullName())
	if err != nil || res.SourceType != "Directory" {
		t.Fatalf("a folder no plugin claims: %v, %v", err, res)
	}
	loop := &Loop{Source: src, Log: io.Discard}
	if _, err := loop.Once(ctx, r, p); !errors.Is(err, ErrUnclaimed) {
		t.Errorf("a loop's render of the unclaimed sample: %v, want ErrUnclaimed", err)
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

// TestAnnounceStaticAndDynamic: the announcements come as the UI gets them,
// the static ones and what the dynamic command printed merged, through the
// real repo-server and argocd-cmp-server.
func TestAnnounceStaticAndDynamic(t *testing.T) {
	e2e(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin, dir := t.TempDir(), t.TempDir()
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./plugins/plain/cmd/cmp-plain")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building cmp-plain: %v\n%s", err, out)
	}
	config := `apiVersion: argoproj.io/v1alpha1
kind: ConfigManagementPlugin
metadata:
  name: cmp-announce
spec:
  version: v1.0
  discover:
    fileName: "./cmp-plain.marker"
  generate:
    command: [cmp-plain, generate]
  parameters:
    static:
    - name: replicas
      itemType: number
      string: "two"
    dynamic:
      command: [sh, -c, 'echo "[{\"name\":\"region\",\"string\":\"eu\"}]"']
`
	if err := os.WriteFile(filepath.Join(dir, "plugin.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := argocd.LoadPlugin(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Start(ctx, Options{ArgoCDVersion: os.Getenv("ARGOCD_VERSION"), Plugin: p, PluginPath: []string{bin}, PortBase: 28100,
		Toolchain: toolchain.Options{NoBuild: os.Getenv("CMP_CONFORMANCE_RENDER_BUILD") == ""}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	anns, sourceType, err := r.Announce(ctx, Source{Folder: "../../plugins/plain/samples/basic", Path: ".", AppName: "announce-test", TrackingMethod: "annotation"}, p.FullName())
	if err != nil {
		t.Fatal(err)
	}
	got := conformance.AnnouncementsFromAPI(anns)
	named := map[string]conformance.Announcement{}
	for _, a := range got {
		named[a.Name] = a
	}
	if sourceType != "Plugin" || len(got) != 2 || named["replicas"].ItemType != "number" || named["region"].String != "eu" {
		t.Fatalf("source type %s, announcements %+v", sourceType, got)
	}
	if problems := conformance.AnnouncementProblems(got); len(problems) != 1 || !strings.Contains(problems[0], `itemType number with the default "two"`) {
		t.Errorf("problems %v, want the number default that is no number", problems)
	}
}

// TestRenderFromRepoURL: a repository URL and a revision stand for the
// folder; the repo-server fetches it itself and resolves the branch, as for
// an Application, so what renders is that branch's commit, not HEAD's.
func TestRenderFromRepoURL(t *testing.T) {
	e2e(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	for _, name := range []string{"cmp-plain.marker", "config.yaml", "deployment.yaml"} {
		data, err := os.ReadFile(filepath.Join("../../plugins/plain/samples/basic", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("add", ".")
	git("commit", "-q", "-m", "sample")
	git("checkout", "-q", "-b", "one-object")
	git("rm", "-q", "deployment.yaml")
	git("commit", "-q", "-m", "the ConfigMap alone")
	git("checkout", "-q", "main")

	r, p := startPlain(t, ctx)
	for rev, want := range map[string]int{"": 2, "main": 2, "one-object": 1} {
		res, err := r.Render(ctx, Source{RepoURL: "file://" + dir, Revision: rev, Path: ".", AppName: "repo-test", Namespace: "default",
			Project: "default", TrackingMethod: "annotation"}, p.FullName())
		if err != nil {
			t.Fatalf("revision %q: %v", rev, err)
		}
		if len(res.Manifests) != want {
			t.Errorf("revision %q rendered %d objects, want %d", rev, len(res.Manifests), want)
		}
	}
}
