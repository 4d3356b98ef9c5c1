package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
	"github.com/cmp-conformance/cmp-conformance/fixtures/pluginimage"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
	"github.com/cmp-conformance/cmp-conformance/plugins"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

func TestPluginImageFlagsRefuseBadInput(t *testing.T) {
	for name, tt := range map[string]struct {
		images, dirs []string
		want         string
	}{
		"no ref":        {images: []string{"plain="}, want: "want ROLE=IMAGE"},
		"unknown role":  {images: []string{"nope=x:1"}, want: `unknown role "nope"`},
		"service":       {images: []string{"service=x:1"}, want: "runs from an image in a cluster only"},
		"twice":         {images: []string{"plain=x:1", "plain=y:1"}, want: "given twice"},
		"dir and image": {images: []string{"plain=x:1"}, dirs: []string{"plain=/tmp"}, want: "both with --plugin and --plugin-image"},
	} {
		f := envFlags{images: tt.images, plugins: tt.dirs, runtime: "embedded"}
		err := f.validateImages()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: validateImages() = %v, want %q", name, err, tt.want)
		}
	}
}

// In a cluster the service role runs from an image, as a Deployment and a
// Service.
func TestServiceImageInACluster(t *testing.T) {
	for _, runtime := range []string{"kind", "existing"} {
		f := envFlags{images: []string{"service=x:1"}, runtime: runtime}
		got, err := f.pluginImages()
		if err != nil || got["service"] != "x:1" {
			t.Errorf("pluginImages() on %s = %v, %v; want the service role's image accepted", runtime, got, err)
		}
	}
}

// The existing runtime's cluster pulls the run's images from a registry it
// must be told, before anything is built; no other runtime takes one.
func TestImageRegistryUsage(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	f := envFlags{runtime: "existing", kubeconfig: kubeconfig, readyTimeout: time.Minute, portBase: 18080}
	if err := f.validate(); err == nil || !strings.Contains(err.Error(), "give --image-registry HOST:PORT") {
		t.Errorf("existing without --image-registry: %v", err)
	}
	f = envFlags{runtime: "embedded", imageRegistry: "127.0.0.1:5000", readyTimeout: time.Minute, portBase: 18080}
	if err := f.validate(); err == nil || !strings.Contains(err.Error(), "drop it") {
		t.Errorf("--image-registry on embedded: %v", err)
	}
}

func TestPluginImageMissingIsAUsageError(t *testing.T) {
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("no docker")
	}
	f := envFlags{images: []string{"plain=cmp-conformance-test/absent:never"}, runtime: "embedded"}
	err := f.validateImages()
	if err == nil || !strings.Contains(err.Error(), "not present on this machine") {
		t.Fatalf("validateImages() = %v, want the image's absence, said before anything starts", err)
	}
}

// An image replaces the reference plugin of its role in the main binding
// and in what the run starts; witnesses keep theirs.
func TestReplaceBindsTheImageToItsRole(t *testing.T) {
	root := fakeRepo(t, twoWitnesses)
	plan, err := planPlugins(root, nil, true, plugins.ProfileCatalogue)
	if err != nil {
		t.Fatal(err)
	}
	before := len(plan.Plugins)
	img := argocd.Plugin{Dir: filepath.Join(t.TempDir(), "plain"), Name: "mine", Version: "v1", Image: "mine:1"}
	plan.replace(conformance.RolePlain, img)
	if len(plan.Plugins) != before || len(plan.Dirs) != before {
		t.Fatalf("%d plugins, %d dirs after replace; want %d", len(plan.Plugins), len(plan.Dirs), before)
	}
	if got := plan.Bindings[0].Subjects[conformance.RolePlain].Plugin.Image; got != "mine:1" {
		t.Errorf("main binding's plain plugin image = %q", got)
	}
	found := false
	for i, p := range plan.Plugins {
		if p.Image == "mine:1" {
			found = plan.Dirs[i] == img.Dir
		}
		if p.Dir == filepath.Join(root, "plugins", "plain") {
			t.Errorf("the reference plain plugin still starts")
		}
	}
	if !found {
		t.Errorf("the image plugin is not among those started (or its dir is wrong)")
	}
	for _, b := range plan.Bindings[1:] {
		if b.Subjects[conformance.RolePlain].Plugin.Image != "" {
			t.Errorf("witness %s was given the image", b.Name)
		}
	}
}

func TestCheckStaticRefusesDynamicPrograms(t *testing.T) {
	dynamic, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	if err := pluginimage.CheckStatic(dynamic); err == nil || !strings.Contains(err.Error(), "dynamically linked") {
		t.Errorf("pluginimage.CheckStatic(%s) = %v, want dynamically linked", dynamic, err)
	}
	if _, err := os.Stat("/bin/busybox"); err == nil {
		if err := pluginimage.CheckStatic("/bin/busybox"); err != nil {
			t.Errorf("pluginimage.CheckStatic(/bin/busybox) = %v (busybox-static)", err)
		}
	}
}

func TestCutShortOnlyForTheInterruption(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	stopped := fmt.Errorf("logging in: %w", context.Canceled)
	if cutShort(ctx, stopped) {
		t.Error("a canceled error while the run was not interrupted counts as cut short")
	}
	cancel()
	if !cutShort(ctx, stopped) {
		t.Error("the interruption surfacing as an error does not count as cut short")
	}
	if cutShort(ctx, errors.New("bring-up failed")) {
		t.Error("a real failure during an interruption counts as cut short")
	}
}

// What kind cannot do yet is refused as a usage error, before anything is
// built, naming what does it; the catalogue itself runs there.
func TestKindUsage(t *testing.T) {
	kind := func(set func(*runFlags)) error {
		f := runFlags{envFlags: envFlags{runtime: "kind"}}
		set(&f)
		return f.inClusterUsage()
	}
	for name, c := range map[string]struct {
		set  func(*runFlags)
		want string
	}{
		"certify a folder": {func(f *runFlags) { f.certify = &certifySubject{dir: "plugin"} }, "certify it with --image"},
	} {
		if err := kind(c.set); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s on kind: %v, want a refusal naming %q", name, err, c.want)
		}
	}
	if err := kind(func(*runFlags) {}); err != nil {
		t.Errorf("the catalogue on kind was refused: %v", err)
	}
	if err := kind(func(f *runFlags) { f.selfTest = true }); err != nil {
		t.Errorf("the self-test on kind was refused: %v", err)
	}
	if err := kind(func(f *runFlags) { f.certify = &certifySubject{image: "mine:1"} }); err != nil {
		t.Errorf("certifying an image on kind was refused: %v", err)
	}
	if err := kind(func(f *runFlags) { f.upgradePath = "previous" }); err != nil {
		t.Errorf("an upgrade run on kind was refused: %v", err)
	}
	f := runFlags{envFlags: envFlags{runtime: "embedded"}, selfTest: true}
	if err := f.inClusterUsage(); err != nil {
		t.Errorf("embedded refused: %v", err)
	}
}

// On kind a plugin runs only from an image: every role whose plugin is a
// host program is marked, saying how to give it an image; elsewhere none.
func TestMarkHostPlugins(t *testing.T) {
	plan := func() *pluginPlan {
		return &pluginPlan{Bindings: []conformance.Binding{{Name: "conformance", Subjects: map[conformance.Role]conformance.Subject{
			conformance.RolePlain:   {Role: conformance.RolePlain, Plugin: argocd.Plugin{Name: "cmp-plain", Image: "plain:dev"}},
			conformance.RoleService: {Role: conformance.RoleService, Plugin: argocd.Plugin{Name: "cmp-service"}},
		}}}}
	}
	p := plan()
	p.markHostPlugins("kind")
	subs := p.Bindings[0].Subjects
	if why := subs[conformance.RolePlain].Unavailable; why != "" {
		t.Errorf("the plain plugin, an image, was marked: %s", why)
	}
	if why := subs[conformance.RoleService].Unavailable; !strings.Contains(why, "--plugin-image service=IMAGE") {
		t.Errorf("the service plugin, a host program, was marked %q; want a reason naming --plugin-image service=IMAGE", why)
	}
	p = plan()
	p.markHostPlugins("embedded")
	if why := p.Bindings[0].Subjects[conformance.RoleService].Unavailable; why != "" {
		t.Errorf("embedded marked a host plugin: %s", why)
	}
}

// On kind the Helm plugin becomes an image only where the helm role is the
// reference plugin as a host program: a role given another plugin is the
// user's choice, and the build hook before it still runs.
func TestHelmImageLeavesAnotherHelmPluginAlone(t *testing.T) {
	root := t.TempDir()
	other := argocd.Plugin{Dir: filepath.Join(t.TempDir(), "my-helm"), Name: "my-helm"}
	p := &pluginPlan{Bindings: []conformance.Binding{{Name: "conformance",
		Subjects: map[conformance.Role]conformance.Subject{conformance.RoleHelm: {Role: conformance.RoleHelm, Plugin: other}}}}}
	built := false
	hook := p.helmImage(root, t.TempDir(), func(context.Context, *toolchain.Set, *environment.Config) error { built = true; return nil })
	tools := &toolchain.Set{Plan: &toolchain.Plan{Pins: map[string]string{toolchain.Helm: "v4.0.0"}}}
	var cfg environment.Config
	if err := hook(context.Background(), tools, &cfg); err != nil || !built {
		t.Fatalf("hook: %v (build ran: %v)", err, built)
	}
	if cfg.Plugins != nil || p.Bindings[0].Subjects[conformance.RoleHelm].Plugin.Image != "" {
		t.Error("a helm role given another plugin was replaced by the reference image")
	}
	if !(&pluginPlan{Bindings: []conformance.Binding{{Subjects: map[conformance.Role]conformance.Subject{
		conformance.RoleHelm: {Plugin: argocd.Plugin{Dir: filepath.Join(root, "plugins", "helm")}}}}}}).referenceHelm(filepath.Join(root, "plugins", "helm")) {
		t.Error("the reference Helm plugin, a host program, was not recognised")
	}
}

// On kind a witness of the service role runs from the service role's image
// with its own plugin.yaml; other host witnesses stay marked.
func TestServiceWitnessesRunFromTheServiceImage(t *testing.T) {
	svc := argocd.Plugin{Dir: "/ref/service", Name: "cmp-service", Image: "cmp-conformance/service:dev", ImageID: "sha256:1", Service: &argocd.Service{}}
	wit := argocd.Plugin{Dir: "/broken/service-x", Name: "broken-service-x", Service: &argocd.Service{Bridge: []string{"cmp-broken-bridge", "--fault", "give-up"}}}
	other := argocd.Plugin{Dir: "/broken/plain-x", Name: "broken-plain-x"}
	p := &pluginPlan{Plugins: []argocd.Plugin{svc, wit, other}, Bindings: []conformance.Binding{
		{Name: "conformance", Subjects: map[conformance.Role]conformance.Subject{conformance.RoleService: {Role: conformance.RoleService, Plugin: svc}}},
		{Name: "broken/service-x", Witness: true, Subjects: map[conformance.Role]conformance.Subject{conformance.RoleService: {Role: conformance.RoleService, Plugin: wit}}},
		{Name: "broken/plain-x", Witness: true, Subjects: map[conformance.Role]conformance.Subject{conformance.RolePlain: {Role: conformance.RolePlain, Plugin: other}}},
	}}
	p.markHostPlugins("kind")
	got := p.Bindings[1].Subjects[conformance.RoleService]
	if got.Unavailable != "" || got.Plugin.Image != svc.Image || got.Plugin.ConfigFile != "/broken/service-x/plugin.yaml" || got.Plugin.Service.Bridge[0] != "cmp-broken-bridge" {
		t.Errorf("service witness %+v: want the service image, its own plugin.yaml and its bridge", got)
	}
	if p.Plugins[1].Image != svc.Image {
		t.Error("the plugin the run starts was not given the image")
	}
	if p.Bindings[2].Subjects[conformance.RolePlain].Unavailable == "" {
		t.Error("a witness that is a host program was not marked")
	}
}
