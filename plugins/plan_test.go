package plugins

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/plugins/faulty"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

func pluginYAML(name string) string {
	return `apiVersion: argoproj.io/v1alpha1
kind: ConfigManagementPlugin
metadata:
  name: ` + name + `
spec:
  version: v1.0
  discover:
    fileName: "./` + name + `.marker"
  generate:
    command: [` + name + `, generate]
`
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fakeRepo is a repository root with plugins/plain and the given witnesses
// (name -> witness.yaml); each witness gets a valid plugin.yaml.
func fakeRepo(t *testing.T, witnesses map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for role, rel := range Reference() {
		if role.IsExtension() {
			writeFile(t, filepath.Join(root, rel, string(role)+".example.com", "Thing", "health.lua"), "return {status = \"Healthy\"}\n")
			continue
		}
		writeFile(t, filepath.Join(root, rel, "plugin.yaml"), pluginYAML("cmp-"+string(role)))
	}
	for name, w := range witnesses {
		dir := filepath.Join(root, "plugins", "broken", name)
		writeFile(t, filepath.Join(dir, "plugin.yaml"), pluginYAML("broken-"+name))
		writeFile(t, filepath.Join(dir, "witness.yaml"), w)
	}
	return root
}

var twoWitnesses = map[string]string{
	"drops":  "role: plain\nmustFail: [SMOKE-002]\nfailsWith: {SMOKE-002: not found}\nwhy: drops resources\n",
	"hidden": "role: plain\nmustFail: [SMOKE-001, SMOKE-003]\nfailsWith: {SMOKE-001: Directory, SMOKE-003: could not find}\nwhy: never discovered\n",
}

func TestPlanPluginsConformanceOnly(t *testing.T) {
	root := fakeRepo(t, twoWitnesses)
	plan, err := CataloguePlan(root, nil, false, ProfileCatalogue)
	if err != nil {
		t.Fatalf("planPlugins: %v", err)
	}
	if len(plan.Bindings) != 1 {
		t.Fatalf("bindings = %d (%v), want 1 without self-test", len(plan.Bindings), plan.Bindings)
	}
	b := plan.Bindings[0]
	if b.Name != "conformance" || b.Witness || len(b.MustFail) != 0 {
		t.Errorf("binding = %s witness=%v mustFail=%v, want conformance, not a witness", b.Name, b.Witness, b.MustFail)
	}
	sub, ok := b.Subjects[conformance.RolePlain]
	if !ok || sub.Role != conformance.RolePlain || sub.Plugin.Name != "cmp-plain" || len(b.Subjects) != len(Reference()) {
		t.Errorf("subjects = %+v, want plain bound to cmp-plain", b.Subjects)
	}
	if want := referenceDirs(root); !slices.Equal(plan.Dirs, want) {
		t.Errorf("Dirs = %v, want %v", plan.Dirs, want)
	}
}

func TestPlanPluginsSelfTest(t *testing.T) {
	root := fakeRepo(t, twoWitnesses)
	plan, err := CataloguePlan(root, nil, true, ProfileCatalogue)
	if err != nil {
		t.Fatalf("planPlugins: %v", err)
	}
	var names []string
	for _, b := range plan.Bindings {
		names = append(names, b.Name)
	}
	if want := []string{"conformance", "broken/drops", "broken/hidden"}; !slices.Equal(names, want) {
		t.Fatalf("bindings = %v, want %v", names, want)
	}
	wantMustFail := map[string][]string{"broken/drops": {"SMOKE-002"}, "broken/hidden": {"SMOKE-001", "SMOKE-003"}}
	for _, b := range plan.Bindings[1:] {
		if !b.Witness {
			t.Errorf("%s: Witness = false", b.Name)
		}
		if !slices.Equal(b.MustFail, wantMustFail[b.Name]) {
			t.Errorf("%s: MustFail = %v, want %v", b.Name, b.MustFail, wantMustFail[b.Name])
		}
		sub, ok := b.Subjects[conformance.RolePlain]
		if want := "broken-" + strings.TrimPrefix(b.Name, "broken/"); !ok || sub.Plugin.Name != want || len(b.Subjects) != 1 {
			t.Errorf("%s: subjects = %+v, want plain bound to %s", b.Name, b.Subjects, want)
		}
	}
	wantDirs := append(referenceDirs(root),
		filepath.Join(root, "plugins", "broken", "drops"), filepath.Join(root, "plugins", "broken", "hidden"))
	if !slices.Equal(plan.Dirs, wantDirs) {
		t.Errorf("Dirs = %v, want %v", plan.Dirs, wantDirs)
	}
}

func TestPlanPluginsErrors(t *testing.T) {
	tests := []struct {
		name      string
		witnesses map[string]string
		root      string // "fake" = a fakeRepo, else used as is
		overrides map[string]string
		selfTest  bool
		want      string
	}{
		{name: "self-test without witnesses", root: "fake", selfTest: true, want: "no witness under"},
		{name: "self-test without a checkout", root: "", selfTest: true, want: "needs the repository checkout"},
		{name: "unknown role override", root: "fake", overrides: map[string]string{"helmish": "/nowhere"}, want: `unknown role "helmish" (roles: customizations, discover-command, discover-file-name, discover-glob, extension, faulty-dynamic, faulty-generate, files, git-creds, helm, init, named-only, parameterized, plain, preserve-file-mode, service)`},
		{name: "override without plugin.yaml", root: "fake", overrides: map[string]string{"plain": "/nonexistent/plugin"}, want: "must hold plugin.yaml"},
		{name: "bad witness", root: "fake", selfTest: true,
			witnesses: map[string]string{"bad": "role: plain\nmustFail: [NOPE-001]\n"}, want: "NOPE-001, which is not a check"},
		{name: "bridge for a sidecar role", root: "fake", selfTest: true,
			witnesses: map[string]string{"bad": "role: plain\nbridge: [cmp-broken-bridge]\nmustFail: [SMOKE-001]\n"}, want: "bridge is for role service only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tt.root
			if root == "fake" {
				root = fakeRepo(t, tt.witnesses)
			}
			plan, err := CataloguePlan(root, tt.overrides, tt.selfTest, ProfileCatalogue)
			if err == nil {
				t.Fatalf("planPlugins succeeded (%+v), want an error", plan)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not mention %q", err, tt.want)
			}
		})
	}
}

func TestPlanPluginsOverride(t *testing.T) {
	root := fakeRepo(t, twoWitnesses)
	mine := t.TempDir()
	writeFile(t, filepath.Join(mine, "plugin.yaml"), pluginYAML("my-plugin"))
	for _, r := range []string{root, ""} { // with and without a checkout
		plan, err := CataloguePlan(r, map[string]string{"plain": mine}, false, ProfileCatalogue)
		if err != nil {
			t.Fatalf("root %q: planPlugins: %v", r, err)
		}
		if got := plan.Bindings[0].Subjects[conformance.RolePlain].Plugin.Name; got != "my-plugin" {
			t.Errorf("root %q: plain bound to %q, want my-plugin", r, got)
		}
		// With a checkout the other roles keep their reference plugins;
		// without one, only the overridden role is bound.
		want := []string{mine}
		if r != "" {
			want = nil
			for _, role := range Roles() {
				switch role {
				case conformance.RolePlain:
					want = append(want, mine)
				case conformance.RoleExtension, conformance.RoleCustomizations:
				default:
					want = append(want, filepath.Join(r, Reference()[role]))
				}
			}
		}
		if !slices.Equal(plan.Dirs, want) {
			t.Errorf("root %q: Dirs = %v, want %v", r, plan.Dirs, want)
		}
	}
}

func TestLoadWitnessRejects(t *testing.T) {
	tests := []struct {
		name, witness, want string
	}{
		{name: "unknown role", witness: "role: kustomize\nmustFail: [SMOKE-001]\n", want: `unknown role "kustomize"`},
		{name: "no role", witness: "mustFail: [SMOKE-001]\n", want: `unknown role ""`},
		{name: "unknown field", witness: "role: plain\nmustFail: [SMOKE-001]\nmustPass: [SMOKE-002]\n", want: `unknown field "mustPass"`},
		{name: "not a check", witness: "role: plain\nmustFail: [SMOKE-001, SMOKE-999]\n", want: "mustFail names SMOKE-999, which is not a check"},
		{name: "not YAML", witness: "role: [plain\n", want: "witness.yaml"},
		{name: "unknown profile", witness: "role: plain\nprofile: nightly\nmustFail: [SMOKE-001]\n", want: `unknown profile "nightly"`},
		{name: "upgrade check outside the upgrade profile", witness: "role: parameterized\nmustFail: [UPG-001]\n", want: "mustFail names UPG-001"},
		{name: "catalogue check in the upgrade profile", witness: "role: parameterized\nprofile: upgrade\nmustFail: [ENV-001]\n", want: "mustFail names ENV-001"},
		{name: "no reason for a check", witness: "role: plain\nmustFail: [SMOKE-001, SMOKE-002]\nfailsWith: {SMOKE-001: x}\n", want: "failsWith has no pattern for SMOKE-002"},
		{name: "reason for a check it need not fail", witness: "role: plain\nmustFail: [SMOKE-001]\nfailsWith: {SMOKE-001: x, SMOKE-002: y}\n", want: "failsWith names SMOKE-002, which is not in mustFail"},
		{name: "image without Dockerfile", witness: "role: plain\nimage: true\nmustFail: [SMOKE-001]\nfailsWith: {SMOKE-001: x}\n", want: "needs a Dockerfile"},
		{name: "image of the service role", witness: "role: service\nimage: true\nmustFail: [SVC-001]\nfailsWith: {SVC-001: x}\n", want: "served over the network"},
		{name: "image tools without image", witness: "role: plain\nimageTools: [busybox]\nmustFail: [SMOKE-001]\nfailsWith: {SMOKE-001: x}\n", want: "imageTools needs image: true"},
		{name: "subject role in the catalogue", witness: "role: subject\nmustFail: [PLUG-001]\nfailsWith: {PLUG-001: x}\n", want: `unknown role "subject"`},
		{name: "plugin profile with a catalogue role", witness: "role: plain\nprofile: plugin\nmustFail: [PLUG-001]\nfailsWith: {PLUG-001: x}\n", want: "stands in for role subject"},
		{name: "catalogue check in the plugin profile", witness: "role: subject\nprofile: plugin\nmustFail: [SMOKE-001]\nfailsWith: {SMOKE-001: x}\n", want: "mustFail names SMOKE-001"},
		{name: "plugin check in the catalogue", witness: "role: plain\nmustFail: [PLUG-001]\nfailsWith: {PLUG-001: x}\n", want: "mustFail names PLUG-001"},
		{name: "plugin witness without certify.yaml", witness: "role: subject\nprofile: plugin\nmustFail: [PLUG-001]\nfailsWith: {PLUG-001: x}\n", want: "certify.yaml"},
		{name: "repo-server setting that is not one", witness: "role: files\nrepoServer: {PATH: /x}\nmustFail: [TAR-001]\nfailsWith: {TAR-001: x}\n", want: `repoServer: "PATH" is not a setting`},
		{name: "controller setting that is not one", witness: "role: files\ncontroller: {HOME: /x}\nmustFail: [TAR-001]\nfailsWith: {TAR-001: x}\n", want: `controller: "HOME" is not a setting`},
		{name: "rbac key Argo CD does not read", witness: "role: plain\nrbac: {policy.admin: role:admin}\nmustFail: [SMOKE-001]\nfailsWith: {SMOKE-001: x}\n", want: `rbac: "policy.admin" is not a key of argocd-rbac-cm`},
		{name: "bad pattern", witness: "role: plain\nmustFail: [SMOKE-001]\nfailsWith: {SMOKE-001: 'a('}\n", want: "failsWith SMOKE-001: error parsing regexp"},
		{name: "bad version in a reason", witness: "role: plain\nmustFail: [SMOKE-001]\nfailsWith: {SMOKE-001@nope: x}\n", want: "failsWith SMOKE-001@nope: bad version constraint"},
		{name: "versioned reason for a check it need not fail", witness: "role: plain\nmustFail: [SMOKE-001]\nfailsWith: {SMOKE-001: x, SMOKE-002@<3.0.0: y}\n", want: "failsWith names SMOKE-002"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := fakeRepo(t, map[string]string{"w": tt.witness})
			file := filepath.Join(root, "plugins", "broken", "w", "witness.yaml")
			b, _, _, err := loadWitness(file)
			if err == nil {
				t.Fatalf("loadWitness succeeded (%+v), want an error", b)
			}
			for _, s := range []string{file, tt.want} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}
	t.Run("witness without plugin.yaml", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "witness.yaml"), "role: plain\nmustFail: [SMOKE-001]\n")
		if _, _, _, err := loadWitness(filepath.Join(dir, "witness.yaml")); err == nil || !strings.Contains(err.Error(), "plugin.yaml") {
			t.Errorf("loadWitness = %v, want an error about the missing plugin.yaml", err)
		}
	})
}

func TestLoadWitnessRepoServerSettings(t *testing.T) {
	w := "role: files\nrepoServer: {ARGOCD_B: '', ARGOCD_A: 'true'}\ncontroller: {ARGOCD_HYDRATOR_ENABLED: 'false'}\nmustFail: [TAR-001]\nfailsWith: {TAR-001: x}\n"
	root := fakeRepo(t, map[string]string{"w": w})
	b, _, _, err := loadWitness(filepath.Join(root, "plugins", "broken", "w", "witness.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ARGOCD_A=true", "ARGOCD_B="}; !slices.Equal(b.RepoServerSettings, want) {
		t.Errorf("RepoServerSettings = %q, want %q (in name order, empty values kept)", b.RepoServerSettings, want)
	}
	if want := []string{"ARGOCD_HYDRATOR_ENABLED=false"}; !slices.Equal(b.ControllerSettings, want) {
		t.Errorf("ControllerSettings = %q, want %q", b.ControllerSettings, want)
	}
}

// referenceDirs are the reference plugin folders in the order planPlugins loads them.
// referenceDirs are the reference plugins' folders (the extension is no plugin).
func referenceDirs(root string) []string {
	var out []string
	for _, r := range Roles() {
		if !r.IsExtension() {
			out = append(out, filepath.Join(root, Reference()[r]))
		}
	}
	return out
}

// The service role is served over the network; a service witness may name
// its own bridge, and every other plugin is a sidecar.
func TestPlanPluginsServiceRole(t *testing.T) {
	root := fakeRepo(t, map[string]string{
		"cut": "role: service\nbridge: [cmp-broken-bridge, --fault, truncate]\nmustFail: [SVC-001]\nfailsWith: {SVC-001: EOF}\n",
	})
	plan, err := CataloguePlan(root, nil, true, ProfileCatalogue)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plan.Plugins {
		switch p.Name {
		case "cmp-service":
			if p.Service == nil || len(p.Service.Bridge) != 0 {
				t.Errorf("reference service plugin: Service = %+v, want served through cmp-bridge", p.Service)
			}
		case "broken-cut":
			if p.Service == nil || !slices.Equal(p.Service.Bridge, []string{"cmp-broken-bridge", "--fault", "truncate"}) {
				t.Errorf("service witness: Service = %+v, want its own bridge", p.Service)
			}
		default:
			if p.Service != nil {
				t.Errorf("%s is served over the network, want a sidecar", p.Name)
			}
		}
	}
}

// loadWitness reads a witness: its binding, profile and image.
func loadWitness(file string) (conformance.Binding, string, *ImageBuild, error) {
	l, err := LoadWitness(file)
	return l.Binding, l.Profile, l.Image, err
}

// A witness of the extension role is an extension folder: it loads without
// plugin.yaml, adds no plugin to a plan, and takes none of a plugin's keys.
func TestExtensionWitness(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "example.com", "Thing", "health.lua"), "return {status = \"Degraded\"}\n")
	w := "role: extension\nmustFail: [EXT-001]\nfailsWith: {EXT-001: shows Degraded}\nwhy: wrong health\n"
	writeFile(t, filepath.Join(dir, "witness.yaml"), w)
	l, err := LoadWitness(filepath.Join(dir, "witness.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sub := l.Binding.Subjects[conformance.RoleExtension]
	if sub.Extension == nil || len(sub.Extension.Kinds) != 1 || !l.Binding.Witness {
		t.Fatalf("binding %+v, want a witness with the extension of one kind", l.Binding)
	}
	var plan Plan
	plan.Add(l.Binding)
	if len(plan.Plugins) != 0 || len(plan.Dirs) != 0 {
		t.Errorf("an extension witness adds plugins %v (dirs %v), want none", plan.Plugins, plan.Dirs)
	}
	writeFile(t, filepath.Join(dir, "witness.yaml"), w+"rbac: {policy.default: 'role:admin'}\n")
	if l, err = LoadWitness(filepath.Join(dir, "witness.yaml")); err != nil || l.Binding.RBACSettings["policy.default"] != "role:admin" || !l.Binding.ChangesArgoCD() {
		t.Errorf("an extension witness with rbac: %+v, %v, want its policy.default set while it runs", l.Binding.RBACSettings, err)
	}
	writeFile(t, filepath.Join(dir, "witness.yaml"), w+"image: true\n")
	if _, err := LoadWitness(filepath.Join(dir, "witness.yaml")); err == nil || !strings.Contains(err.Error(), "extension folder") {
		t.Errorf("an extension witness with image: true: %v, want refused", err)
	}
}

// The faulty-generate role runs under a low gRPC limit wherever it is bound
// (the reference, its witnesses), and no other role gets the setting: a
// subject's limit is its own.
func TestFaultyGenerateRunsUnderTheLowGRPCLimit(t *testing.T) {
	plan, err := CataloguePlan("..", nil, true, ProfileCatalogue)
	if err != nil {
		t.Fatal(err)
	}
	want := faulty.GRPCMaxSizeEnv + "=4"
	seen := 0
	for _, b := range plan.Bindings {
		for role, sub := range b.Subjects {
			has := slices.Contains(sub.Plugin.Env, want)
			if has != (role == conformance.RoleFaultyGenerate) {
				t.Errorf("%s: role %s has env %v", b.Name, role, sub.Plugin.Env)
			}
			if has {
				seen++
			}
		}
	}
	if seen < 2 { // the reference and faulty-hides-faults at least
		t.Errorf("the limit was set on %d plugins, want the reference's and its witnesses'", seen)
	}
}
