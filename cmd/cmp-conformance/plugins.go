package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
	"github.com/cmp-conformance/cmp-conformance/reports"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

const modulePath = "github.com/cmp-conformance/cmp-conformance"

// referencePlugins are the plugin folder of each role, relative to the
// repository root.
func referencePlugins() map[conformance.Role]string {
	return map[conformance.Role]string{
		conformance.RolePlain:            "plugins/plain",
		conformance.RoleParameterized:    "plugins/sidecar",
		conformance.RoleFaultyDynamic:    "plugins/faulty",
		conformance.RoleService:          "plugins/service",
		conformance.RoleFaultyGenerate:   "plugins/faulty-generate",
		conformance.RoleHelm:             "plugins/helm",
		conformance.RoleFiles:            "plugins/contract",
		conformance.RolePreserveFileMode: "plugins/contract-preserve",
		conformance.RoleGitCreds:         "plugins/contract-gitcreds",
		conformance.RoleInit:             "plugins/contract-init",
		conformance.RoleDiscoverFileName: "plugins/discover-name",
		conformance.RoleDiscoverGlob:     "plugins/discover-glob",
		conformance.RoleDiscoverCommand:  "plugins/discover-command",
		conformance.RoleNamedOnly:        "plugins/named-only",
	}
}

// repoRoot finds this project's checkout above the working directory: the
// reference plugins and witnesses are built from it.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(data, []byte("module "+modulePath+"\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside a cmp-conformance checkout: the reference plugins are built from it (run from the repository, or give every role with --plugin ROLE=DIR and their programs with --plugin-path)")
		}
		dir = parent
	}
}

// buildPlugins compiles every plugin program (plugins/*/cmd/*, examples/*/cmd/*) into dir.
// The Go build cache makes this a second or two when nothing changed. The
// Helm plugin, a module of its own (plugins/helm, on the Helm SDK), is built
// once the Argo CD version is known (helmBuildFor).
func buildPlugins(ctx context.Context, root, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// cmp-gitserver too: the kind runtime serves the sources from a
	// container; and cmp-idle, the fixtures' workload on the existing one.
	cmd := exec.CommandContext(ctx, "go", "build", "-o", dir+string(os.PathSeparator), "./plugins/...", "./examples/...", "./cmd/cmp-gitserver", "./cmd/cmp-idle")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building the plugin programs: %w\n%s", err, out)
	}
	return nil
}

// witness is plugins/broken/<name>/witness.yaml: which role a broken plugin
// stands in for and which checks it must fail.
type witness struct {
	Role     conformance.Role `json:"role"`
	MustFail []string         `json:"mustFail"`
	// FailsWith holds, for each check of MustFail, a regular expression its
	// failure message must match: how the witness must fail it.
	FailsWith map[string]string `json:"failsWith"`
	Why       string            `json:"why"`
	// ForgedRecord says why the witness writes a false record of what it
	// received instead of misbehaving as a plugin would (the report says so).
	ForgedRecord string `json:"forgedRecord,omitempty"`
	// Bridge replaces cmp-bridge for a service witness: program and arguments.
	Bridge []string `json:"bridge,omitempty"`
	// Profile "upgrade" makes it a witness of upgrade runs (the UPG checks)
	// only; a witness without one serves the catalogue's runs.
	Profile string `json:"profile,omitempty"`
	// Image makes the witness ship as an image built from its folder's
	// Dockerfile (cmp-conformance/broken-<folder>:dev) and run as a sidecar:
	// it proves the checks that look inside a plugin image's container.
	Image bool `json:"image,omitempty"`
	// ImageTools are static host programs (found on PATH) put into the
	// image's build context by name, e.g. busybox for a shell.
	ImageTools []string `json:"imageTools,omitempty"`
	// RepoServer are ARGOCD_* settings of the repo-server while the
	// witness's checks run: a witness that is an Argo CD with a protection
	// turned off (the plugin is then a reference plugin under its own name).
	RepoServer map[string]string `json:"repoServer,omitempty"`
	// Controller are ARGOCD_* settings of the application controller, the
	// same way (hydrator-off: ARGOCD_HYDRATOR_ENABLED).
	Controller map[string]string `json:"controller,omitempty"`
}

// imageBuild is an image a run builds before it starts: a witness that
// ships as an image.
type imageBuild struct {
	Dir, Tag string
	Tools    []string
}

// Profiles a run (and a witness) can have, as the report names them; a
// witness without a profile serves the catalogue.
const (
	profileCatalogue = "catalogue"
	profileUpgrade   = "upgrade"
	// profilePlugin is certify's: one plugin on its own samples.
	profilePlugin = reports.ProfilePlugin
)

// profileOf is the profile whose runs have the checks of area.
func profileOf(area conformance.Area) string {
	switch area {
	case conformance.Upgrade:
		return profileUpgrade
	case conformance.Plugin:
		return profilePlugin
	}
	return profileCatalogue
}

// profileArea is the area whose checks a profile runs ("" for the catalogue:
// every area but upgrade and plugin).
func profileArea(profile string) conformance.Area {
	return map[string]conformance.Area{profileUpgrade: conformance.Upgrade, profilePlugin: conformance.Plugin}[profile]
}

// pluginPlan is what a run loads: every plugin folder, and the bindings.
type pluginPlan struct {
	Dirs []string
	// Plugins are the plugins of Dirs, loaded and validated once.
	Plugins  []argocd.Plugin
	Bindings []conformance.Binding
	// ToolsReady builds the programs that depend on the Argo CD version
	// (environment.Config.ToolsReady); nil outside a checkout.
	ToolsReady func(context.Context, *toolchain.Set, *environment.Config) error
	// Bin is the folder of the plugin programs built for this run ("" when
	// none were: outside a checkout).
	Bin string
	// Images are the witness images to build once Bin is.
	Images []imageBuild
	// Checks are the checks of the run's profile.
	Checks []conformance.Check
}

// planPlugins binds roles to plugins: the reference plugins, overridden by
// --plugin ROLE=DIR, and with selfTest every witness of the run's profile
// under plugins/broken.
func planPlugins(root string, overrides map[string]string, selfTest bool, profile string) (*pluginPlan, error) {
	plan := &pluginPlan{Checks: conformance.Catalogue()}
	main := conformance.Binding{Name: "conformance", Subjects: map[conformance.Role]conformance.Subject{}}
	for _, role := range sortedRoles() {
		rel := referencePlugins()[role]
		dir := filepath.Join(root, rel)
		if o, ok := overrides[string(role)]; ok {
			dir = o
		} else if root == "" {
			continue
		}
		p, err := argocd.LoadPlugin(dir)
		if err != nil {
			return nil, err
		}
		if role == conformance.RoleService {
			p.Service = &argocd.Service{}
		}
		main.Subjects[role] = conformance.Subject{Role: role, Plugin: p}
		plan.Dirs = append(plan.Dirs, dir)
		plan.Plugins = append(plan.Plugins, p)
	}
	for role := range overrides {
		if _, ok := referencePlugins()[conformance.Role(role)]; !ok {
			return nil, fmt.Errorf("--plugin %s=...: unknown role %q (roles: %s)", role, role, roles())
		}
	}
	plan.Bindings = append(plan.Bindings, main)
	if !selfTest {
		return plan, nil
	}
	if root == "" {
		return nil, errors.New("--self-test needs the repository checkout (plugins/broken)")
	}
	return plan, plan.addWitnesses(root, profile)
}

// add adds a binding and its plugins.
func (p *pluginPlan) add(b conformance.Binding) {
	p.Bindings = append(p.Bindings, b)
	for _, role := range slices.Sorted(maps.Keys(b.Subjects)) {
		p.Plugins = append(p.Plugins, b.Subjects[role].Plugin)
		p.Dirs = append(p.Dirs, b.Subjects[role].Plugin.Dir)
	}
}

// addWitnesses adds every witness of profile under plugins/broken.
func (p *pluginPlan) addWitnesses(root, profile string) error {
	files, _ := filepath.Glob(filepath.Join(root, "plugins", "broken", "*", "witness.yaml"))
	sort.Strings(files)
	if len(files) == 0 {
		return fmt.Errorf("no witness under %s/plugins/broken", root)
	}
	for _, f := range files {
		b, witnessProfile, build, err := loadWitness(f)
		if err != nil {
			return err
		}
		if witnessProfile != profile {
			continue
		}
		if build != nil {
			p.Images = append(p.Images, *build)
		}
		p.add(b)
	}
	return nil
}

// loadWitness reads a witness: its binding and profile, and the image to
// build when it ships as one.
func loadWitness(file string) (conformance.Binding, string, *imageBuild, error) {
	b, profile, build, err := readWitness(file)
	if err != nil {
		return conformance.Binding{}, "", nil, fmt.Errorf("%s: %w", file, err)
	}
	return b, profile, build, nil
}

func readWitness(file string) (conformance.Binding, string, *imageBuild, error) {
	var w witness
	data, err := os.ReadFile(file)
	if err != nil {
		return conformance.Binding{}, "", nil, err
	}
	if err := yaml.UnmarshalStrict(data, &w); err != nil {
		return conformance.Binding{}, "", nil, err
	}
	if w.Profile == "" {
		w.Profile = profileCatalogue
	}
	switch w.Profile {
	case profileCatalogue, profileUpgrade:
		if _, ok := referencePlugins()[w.Role]; !ok {
			return conformance.Binding{}, "", nil, fmt.Errorf("unknown role %q (roles: %s; %s for profile %s)", w.Role, roles(), conformance.RoleSubject, profilePlugin)
		}
	case profilePlugin:
		if w.Role != conformance.RoleSubject {
			return conformance.Binding{}, "", nil, fmt.Errorf("a witness of profile %s stands in for role %s, not %q", profilePlugin, conformance.RoleSubject, w.Role)
		}
	default:
		return conformance.Binding{}, "", nil, fmt.Errorf("unknown profile %q (want %q, %q or none)", w.Profile, profileUpgrade, profilePlugin)
	}
	known, area := map[string]bool{}, map[string]conformance.Area{}
	for _, c := range conformance.All() {
		known[c.ID], area[c.ID] = true, c.Area
	}
	if err := conformance.ValidateMustFail(w.MustFail, known); err != nil {
		return conformance.Binding{}, "", nil, err
	}
	// A witness is run in its profile's runs only: the checks it must fail
	// must be checks those runs have.
	for _, entry := range w.MustFail {
		id, _, _ := strings.Cut(entry, "@")
		if profileArea(w.Profile) != profileArea(profileOf(area[id])) {
			return conformance.Binding{}, "", nil, fmt.Errorf("mustFail names %s (area %s), which runs of profile %q do not have", id, area[id], w.Profile)
		}
	}
	dir := filepath.Dir(file)
	p, err := argocd.LoadPlugin(dir)
	if err != nil {
		return conformance.Binding{}, "", nil, err
	}
	switch {
	case w.Role == conformance.RoleService:
		p.Service = &argocd.Service{Bridge: w.Bridge}
	case len(w.Bridge) > 0:
		return conformance.Binding{}, "", nil, fmt.Errorf("bridge is for role %s only (role is %s)", conformance.RoleService, w.Role)
	}
	failsWith, err := reasons(w)
	if err != nil {
		return conformance.Binding{}, "", nil, err
	}
	var build *imageBuild
	switch {
	case w.Image && w.Role == conformance.RoleService:
		return conformance.Binding{}, "", nil, fmt.Errorf("image: the %s role is served over the network, not as a sidecar", w.Role)
	case w.Image:
		if _, err := os.Stat(filepath.Join(dir, "Dockerfile")); err != nil {
			return conformance.Binding{}, "", nil, fmt.Errorf("image: true needs a Dockerfile beside it: %w", err)
		}
		p.Image = "cmp-conformance/broken-" + filepath.Base(dir) + ":dev"
		build = &imageBuild{Dir: dir, Tag: p.Image, Tools: w.ImageTools}
	case len(w.ImageTools) > 0:
		return conformance.Binding{}, "", nil, errors.New("imageTools needs image: true")
	}
	b := conformance.Binding{Name: "broken/" + filepath.Base(dir), Witness: true, MustFail: w.MustFail, FailsWith: failsWith, ForgedRecord: w.ForgedRecord}
	if b.RepoServerSettings, err = argoCDSettings("repoServer", w.RepoServer); err != nil {
		return conformance.Binding{}, "", nil, err
	}
	if b.ControllerSettings, err = argoCDSettings("controller", w.Controller); err != nil {
		return conformance.Binding{}, "", nil, err
	}
	b.Subjects = map[conformance.Role]conformance.Subject{w.Role: {Role: w.Role, Plugin: p}}
	if w.Role == conformance.RoleSubject {
		// A witness of the plugin profile is judged on samples of its own.
		cert, err := conformance.LoadCertification(filepath.Join(dir, "certify.yaml"))
		if err != nil {
			return conformance.Binding{}, "", nil, err
		}
		b.Certification, b.Subjects = cert, cert.Bind(b.Name, p).Subjects
	}
	return b, w.Profile, build, nil
}

// argoCDSettings turns a witness's repoServer or controller map into
// KEY=VALUE settings, in name order.
func argoCDSettings(field string, m map[string]string) ([]string, error) {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !argocd.IsSetting(k) {
			return nil, fmt.Errorf("%s: %q is not a setting (want an ARGOCD_* variable such as ARGOCD_REPO_SERVER_ALLOW_OUT_OF_BOUNDS_SYMLINKS or ARGOCD_HYDRATOR_ENABLED)", field, k)
		}
		out = append(out, k+"="+m[k])
	}
	return out, nil
}

// reasons compiles failsWith: one pattern for every check of mustFail, and
// none for a check the witness need not fail.
func reasons(w witness) (map[string]*regexp.Regexp, error) {
	out := map[string]*regexp.Regexp{}
	must := map[string]bool{}
	for _, entry := range w.MustFail {
		id, _, _ := strings.Cut(entry, "@")
		must[id] = true
		if _, ok := w.FailsWith[id]; !ok {
			return nil, fmt.Errorf("failsWith has no pattern for %s: say how the witness must fail it (a regular expression over its failure message)", id)
		}
	}
	for id, pattern := range w.FailsWith {
		if !must[id] {
			return nil, fmt.Errorf("failsWith names %s, which is not in mustFail", id)
		}
		re, err := regexp.Compile(pattern)
		if err != nil {
			return nil, fmt.Errorf("failsWith %s: %w", id, err)
		}
		out[id] = re
	}
	return out, nil
}

func sortedRoles() []conformance.Role {
	var out []conformance.Role
	for r := range referencePlugins() {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func roles() string {
	var out []string
	for _, r := range sortedRoles() {
		out = append(out, string(r))
	}
	return strings.Join(out, ", ")
}
