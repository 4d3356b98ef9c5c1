package plugins

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

// An image replaces the reference plugin of its role in the main binding
// and in what the run starts; witnesses keep theirs.
func TestReplaceBindsTheImageToItsRole(t *testing.T) {
	root := fakeRepo(t, twoWitnesses)
	plan, err := CataloguePlan(root, nil, true, ProfileCatalogue)
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

// On kind a plugin runs only from an image: every role whose plugin is a
// host program is marked, saying how to give it an image; elsewhere none.
func TestMarkHostPlugins(t *testing.T) {
	plan := func() *Plan {
		return &Plan{Bindings: []conformance.Binding{{Name: "conformance", Subjects: map[conformance.Role]conformance.Subject{
			conformance.RolePlain:   {Role: conformance.RolePlain, Plugin: argocd.Plugin{Name: "cmp-plain", Image: "plain:dev"}},
			conformance.RoleService: {Role: conformance.RoleService, Plugin: argocd.Plugin{Name: "cmp-service"}},
		}}}}
	}
	p := plan()
	p.MarkHostPlugins("kind")
	subs := p.Bindings[0].Subjects
	if why := subs[conformance.RolePlain].Unavailable; why != "" {
		t.Errorf("the plain plugin, an image, was marked: %s", why)
	}
	if why := subs[conformance.RoleService].Unavailable; !strings.Contains(why, "--plugin-image service=IMAGE") {
		t.Errorf("the service plugin, a host program, was marked %q; want a reason naming --plugin-image service=IMAGE", why)
	}
	p = plan()
	p.MarkHostPlugins("embedded")
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
	p := &Plan{Bindings: []conformance.Binding{{Name: "conformance",
		Subjects: map[conformance.Role]conformance.Subject{conformance.RoleHelm: {Role: conformance.RoleHelm, Plugin: other}}}}}
	built := false
	hook := p.helmImage(root, t.TempDir(), func(context.Context, *toolchain.Set, *environment.Config) error { built = true; return nil }, io.Discard)
	tools := &toolchain.Set{Plan: &toolchain.Plan{Pins: map[string]string{toolchain.Helm: "v4.0.0"}}}
	var cfg environment.Config
	if err := hook(context.Background(), tools, &cfg); err != nil || !built {
		t.Fatalf("hook: %v (build ran: %v)", err, built)
	}
	if cfg.Plugins != nil || p.Bindings[0].Subjects[conformance.RoleHelm].Plugin.Image != "" {
		t.Error("a helm role given another plugin was replaced by the reference image")
	}
	if !(&Plan{Bindings: []conformance.Binding{{Subjects: map[conformance.Role]conformance.Subject{
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
	p := &Plan{Plugins: []argocd.Plugin{svc, wit, other}, Bindings: []conformance.Binding{
		{Name: "conformance", Subjects: map[conformance.Role]conformance.Subject{conformance.RoleService: {Role: conformance.RoleService, Plugin: svc}}},
		{Name: "broken/service-x", Witness: true, Subjects: map[conformance.Role]conformance.Subject{conformance.RoleService: {Role: conformance.RoleService, Plugin: wit}}},
		{Name: "broken/plain-x", Witness: true, Subjects: map[conformance.Role]conformance.Subject{conformance.RolePlain: {Role: conformance.RolePlain, Plugin: other}}},
	}}
	p.MarkHostPlugins("kind")
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
