package plugins

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"golang.org/x/mod/semver"

	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

// helmBuild says how the Helm plugin is built for a Helm version: from
// which module of plugins/helm, with which tags, against which SDK module.
type helmBuild struct {
	// sub is the module's folder under plugins/helm ("" for Helm 3).
	sub, tags, sdk string
}

func helmBuildOf(pin string) helmBuild {
	if semver.Major(pin) == "v4" {
		return helmBuild{sub: "helm4", tags: "helm4", sdk: "helm.sh/helm/v4"}
	}
	return helmBuild{sdk: "helm.sh/helm/v3"}
}

// HelmBuildFor builds the Helm plugin and its witness program
// (cmp-helm-broken) on the Helm SDK the Argo CD version pins: the Helm 4
// build from v3.5, at the pin's exact version (a copy of plugins/helm whose
// go.mod is moved to the pin), so that the HELM checks compare the plugin
// with the very Helm that version ships. The build goes to bin/helm-<pin>,
// just before bin on the plugins' PATH (after the user's --plugin-path,
// which must not be shadowed). -trimpath keeps the Go build cache valid
// across copies: a rebuild at a pin seen before takes seconds.
func HelmBuildFor(root, bin string, progress io.Writer) ToolsReady {
	return func(ctx context.Context, tools *toolchain.Set, cfg *environment.Config) error {
		pin := tools.Plan.Pins[toolchain.Helm]
		if pin == "" {
			return nil
		}
		fmt.Fprintf(progress, "plugins: building the Helm plugin on Helm SDK %s (the Helm Argo CD %s ships)\n", pin, tools.ArgoCDVersion)
		dir := filepath.Join(bin, "helm-"+pin)
		if err := buildHelm(ctx, root, pin, dir); err != nil {
			return err
		}
		cfg.PluginPath = beforeBin(cfg.PluginPath, bin, dir)
		return nil
	}
}

// buildHelm builds the Helm plugin at pin in this machine's program cache
// (buildPackages says why and how it is shared) and copies its programs
// into dir.
func buildHelm(ctx context.Context, root, pin, dir string) error {
	b := helmBuildOf(pin)
	ref := filepath.Join(root, "plugins", "helm")
	key := buildKey{src: ref, env: append(goToolchainEnv(filepath.Join(ref, b.sub)), helmBuildEnv...), args: []string{"helm", pin, b.tags}}
	return throughCache("helm-"+pin, dir, key, func(built string) ([]string, error) {
		src := filepath.Join(built, "src")
		if err := os.RemoveAll(src); err != nil {
			return nil, err
		}
		if err := os.CopyFS(src, os.DirFS(ref)); err != nil {
			return nil, fmt.Errorf("copying plugins/helm to build it at Helm %s: %w", pin, err)
		}
		module := filepath.Join(src, b.sub)
		programs := []string{"cmp-helm", "cmp-helm-broken"}
		steps := [][]string{{"go", "get", b.sdk + "@" + pin}, {"go", "build", "-trimpath", "-ldflags=-w", "-tags", b.tags, "-o", built + string(os.PathSeparator), "./cmd/" + programs[0], "./cmd/" + programs[1]}}
		for _, args := range steps {
			cmd := exec.CommandContext(ctx, args[0], args[1:]...)
			cmd.Dir = module
			// The toolchain is read per step, not from key: go get may move the copy's go line.
			cmd.Env = append(os.Environ(), append(goToolchainEnv(module), helmBuildEnv...)...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				return nil, fmt.Errorf("building the Helm plugin on Helm SDK %s (%s in a copy of %s): %w\n%s", pin, args[1], filepath.Join("plugins", "helm", b.sub), err, out.String())
			}
		}
		return programs, nil
	})
}

// helmBuildEnv is what the Helm plugin's go commands set beyond the
// toolchain and the caller's environment.
var helmBuildEnv = []string{"CGO_ENABLED=0", "GOFLAGS=-mod=mod", "GOWORK=off"}

// beforeBin is path with dir inserted just before bin (at the end without it).
func beforeBin(path []string, bin, dir string) []string {
	i := slices.Index(path, bin)
	if i < 0 {
		i = len(path)
	}
	return slices.Insert(slices.Clone(path), i, dir)
}

// HelmBuilt is HelmBuildFor for the shares of a parallel run: the parent
// built the Helm plugin into bin already, and the shares use that build (a
// build of their own each would cost seconds of CPU that the checks need, and
// several at once into one folder would race).
func HelmBuilt(bin string) ToolsReady {
	return func(_ context.Context, tools *toolchain.Set, cfg *environment.Config) error {
		pin := tools.Plan.Pins[toolchain.Helm]
		if pin == "" {
			return nil
		}
		dir := filepath.Join(bin, "helm-"+pin)
		if _, err := os.Stat(filepath.Join(dir, "cmp-helm")); err != nil {
			return fmt.Errorf("the Helm plugin on Helm SDK %s was not built into %s: %w", pin, dir, err)
		}
		cfg.PluginPath = beforeBin(cfg.PluginPath, bin, dir)
		return nil
	}
}

// helmImage is build followed, on kind, by the Helm plugin's image: the
// program just built for the version's Helm, FROM scratch with
// plugins/helm/plugin.yaml (plugins/helm/Dockerfile), as
// cmp-conformance/helm:<pin>. The helm role then runs from it as a sidecar,
// like every other plugin there, and the environment gets the image plugin
// in place of the host program. A helm role given another plugin (--plugin,
// --plugin-image) is left alone.
func (p *Plan) helmImage(root, output string, build ToolsReady, progress io.Writer) ToolsReady {
	return func(ctx context.Context, tools *toolchain.Set, cfg *environment.Config) error {
		if err := build(ctx, tools, cfg); err != nil {
			return err
		}
		pin := tools.Plan.Pins[toolchain.Helm]
		ref := filepath.Join(root, "plugins", "helm")
		if pin == "" || !p.referenceHelm(ref) {
			return nil
		}
		dir := filepath.Join(p.Bin, "helm-"+pin)
		img, err := BuildImage(ctx, ref, dir, "cmp-conformance/helm:"+pin, nil, io.Discard)
		if err != nil {
			return fmt.Errorf("the Helm plugin's image (Helm %s): %w", pin, err)
		}
		if err := p.BindImage(ctx, conformance.RoleHelm, img.Ref, output); err != nil {
			return fmt.Errorf("the Helm plugin's image: %w", err)
		}
		fmt.Fprintf(progress, "plugins: the Helm plugin runs from image %s on kind\n", img.Ref)
		cfg.Plugins = p.Plugins
		return nil
	}
}

// referenceHelm says whether the main binding's helm role is the reference
// plugin of folder ref, as a program of this host.
func (p *Plan) referenceHelm(ref string) bool {
	for _, b := range p.Bindings {
		if s, ok := b.Subjects[conformance.RoleHelm]; ok && !b.Witness {
			return s.Plugin.Image == "" && s.Plugin.Dir == ref
		}
	}
	return false
}
