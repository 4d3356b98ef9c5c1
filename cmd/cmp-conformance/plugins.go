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
	"slices"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
	"github.com/cmp-conformance/cmp-conformance/plugins"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

const modulePath = "github.com/cmp-conformance/cmp-conformance"

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
	Images []plugins.ImageBuild
	// Checks are the checks of the run's profile.
	Checks []conformance.Check
}

// planPlugins binds roles to plugins: the reference plugins, overridden by
// --plugin ROLE=DIR, and with selfTest every witness of the run's profile
// under plugins/broken.
func planPlugins(root string, overrides map[string]string, selfTest bool, profile string) (*pluginPlan, error) {
	plan := &pluginPlan{Checks: conformance.Catalogue()}
	main := conformance.Binding{Name: "conformance", Subjects: map[conformance.Role]conformance.Subject{}}
	for _, role := range plugins.Roles() {
		rel := plugins.Reference()[role]
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
		if _, ok := plugins.Reference()[conformance.Role(role)]; !ok {
			return nil, fmt.Errorf("--plugin %s=...: unknown role %q (roles: %s)", role, role, plugins.RoleList())
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
	files, err := plugins.WitnessFiles(root)
	if err != nil {
		return err
	}
	for _, f := range files {
		l, err := plugins.LoadWitness(f)
		if err != nil {
			return err
		}
		if l.Profile != profile {
			continue
		}
		if l.Image != nil {
			p.Images = append(p.Images, *l.Image)
		}
		p.add(l.Binding)
	}
	return nil
}

// loadWitness reads a witness: its binding and profile, and the image to
// build when it ships as one.
func loadWitness(file string) (conformance.Binding, string, *plugins.ImageBuild, error) {
	l, err := plugins.LoadWitness(file)
	return l.Binding, l.Profile, l.Image, err
}

// keepBindings narrows a plan to some bindings and the plugins they use.
func (p *pluginPlan) keepBindings(names map[string]bool) {
	p.Bindings = slices.DeleteFunc(p.Bindings, func(b conformance.Binding) bool { return !names[b.Name] })
	used := map[string]bool{}
	for _, b := range p.Bindings {
		for _, s := range b.Subjects {
			used[s.Plugin.Dir] = true
		}
	}
	p.Plugins = slices.DeleteFunc(p.Plugins, func(pl argocd.Plugin) bool { return !used[pl.Dir] })
}
