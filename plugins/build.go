package plugins

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/pluginimage"
)

// BuildPrograms compiles every plugin program of the checkout root
// (plugins/*/cmd/*, examples/*/cmd/*) into dir. The Go build cache makes
// this a second or two when nothing changed. The Helm plugin, a module of
// its own (plugins/helm, on the Helm SDK), is built once the Argo CD
// version is known (HelmBuildFor).
func BuildPrograms(ctx context.Context, root, dir string) error {
	// The helpers too: cmp-gitserver, as the kind runtime serves the
	// sources from a container, and cmp-idle, the fixtures' workload on the
	// existing one.
	return buildPackages(ctx, root, dir, append([]string{"./plugins/...", "./examples/..."}, helperPackages...))
}

// helperPackages are the programs a cluster runs beside Argo CD, whatever
// the plugins: the git server's container, the fixtures' idle workload, a
// plugin service's bridge.
var helperPackages = []string{"./cmd/cmp-gitserver", "./cmd/cmp-idle", "./plugins/service/cmd/cmp-bridge"}

// BuildHelpers compiles only the helper programs into dir: what a
// certification on a cluster needs, its subject bringing its own.
func BuildHelpers(ctx context.Context, root, dir string) error {
	return buildPackages(ctx, root, dir, helperPackages)
}

func buildPackages(ctx context.Context, root, dir string, pkgs []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "go", append([]string{"build", "-o", dir + string(os.PathSeparator)}, pkgs...)...)
	cmd.Dir = root
	// -trimpath and no VCS stamp: a program's bytes depend on its sources
	// only, so a clean clone or a new commit that leaves a plugin alone
	// reuses the build cache and its image's layers; no DWARF (-w) halves
	// each link.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=mod -trimpath -buildvcs=false -ldflags=-w")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building the plugin programs: %w\n%s", err, out)
	}
	return nil
}

// BuildImage builds dir's Dockerfile from a context holding its
// plugin.yaml, the programs that plugin.yaml runs (taken from bin), and the
// host tools named (found on PATH; they must be static, as busybox-static's is).
func BuildImage(ctx context.Context, dir, bin, tag string, tools []string, log io.Writer) (pluginimage.Image, error) {
	p, err := argocd.LoadPlugin(dir)
	if err != nil {
		return pluginimage.Image{}, err
	}
	files := map[string]string{"Dockerfile": filepath.Join(dir, "Dockerfile"), "plugin.yaml": filepath.Join(dir, "plugin.yaml")}
	for _, prog := range p.Programs {
		files[prog] = filepath.Join(bin, prog)
	}
	for _, t := range tools {
		path, err := exec.LookPath(t)
		if err != nil {
			return pluginimage.Image{}, fmt.Errorf("image %s needs %s from this host: %w (make tools-system installs it)", tag, t, err)
		}
		if err := pluginimage.CheckStatic(path); err != nil {
			return pluginimage.Image{}, fmt.Errorf("image %s: %w", tag, err)
		}
		files[t] = path
	}
	tmp, err := Stage(files)
	if err != nil {
		return pluginimage.Image{}, fmt.Errorf("image %s: %w", tag, err)
	}
	defer os.RemoveAll(tmp)
	return pluginimage.Build(ctx, tmp, tag, log)
}

// Stage copies files (name in the context: source path) into a new build
// context, a temporary folder the caller removes.
func Stage(files map[string]string) (string, error) {
	tmp, err := os.MkdirTemp("", "cmpc-image-")
	if err != nil {
		return "", err
	}
	for name, src := range files {
		if err := copyFile(src, filepath.Join(tmp, name)); err != nil {
			os.RemoveAll(tmp)
			return "", err
		}
	}
	return tmp, nil
}

// BuildWitnessImages builds the images of witnesses that ship as one, from
// the programs in bin. A share of a parallel run finds them built by its
// parent (shared is true) and only checks they are there.
func BuildWitnessImages(ctx context.Context, builds []ImageBuild, bin string, shared bool, progress io.Writer) error {
	if len(builds) == 0 {
		return nil
	}
	if err := pluginimage.Ping(ctx); err != nil {
		return fmt.Errorf("witnesses that ship as images: %w", err)
	}
	start := time.Now()
	for _, b := range builds {
		if shared {
			if _, err := pluginimage.Inspect(ctx, b.Tag); err != nil {
				return fmt.Errorf("witness %s: %w", filepath.Base(b.Dir), err)
			}
			continue
		}
		if _, err := BuildImage(ctx, b.Dir, bin, b.Tag, b.Tools, io.Discard); err != nil {
			return fmt.Errorf("witness %s: %w", filepath.Base(b.Dir), err)
		}
	}
	if !shared {
		fmt.Fprintf(progress, "plugins: built %d witness images (%.1fs)\n", len(builds), time.Since(start).Seconds())
	}
	return nil
}

// MissingPrograms names what dir's plugin.yaml runs that bin does not hold
// (cmp-helm is built per Argo CD version, not with the others).
func MissingPrograms(dir, bin string) []string {
	p, err := argocd.LoadPlugin(dir)
	if err != nil {
		return nil // BuildImage reports it
	}
	var out []string
	for _, prog := range p.Programs {
		if _, err := os.Stat(filepath.Join(bin, prog)); err != nil {
			out = append(out, prog)
		}
	}
	return out
}

func copyFile(src, dst string) error {
	info, err := os.Stat(src)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, info.Mode().Perm())
}
