package plugins

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/pluginimage"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
	"github.com/cmp-conformance/cmp-conformance/internal/files"
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

// buildPackages links pkgs' programs into this machine's program cache
// and copies them from there into dir. Every run used to link them into
// its own folder: about 5 s of CPU each, 12 s when make test's runs did it
// at once; Go skips a program whose file in the cache is up to date (its
// build ID matches the sources, flags and toolchain), so a second run, or
// a clean clone of the same sources, pays well under a second. The cache
// is shared by every checkout and run of this machine: a lock holds it
// while one builds and copies, and a run only ever executes its own
// copies, so another checkout relinking the cache cannot change a program
// under a running check.
func buildPackages(ctx context.Context, root, dir string, pkgs []string) error {
	key := buildKey{src: root, env: goCommandEnv(root), args: append([]string{"programs"}, pkgs...)}
	return throughCache("", dir, key, func(cache string) ([]string, error) {
		// The programs' names as go build names them (a /vN suffix skipped).
		list := goCommand(ctx, root, "list", "-f", `{{if eq .Name "main"}}{{.Target}}{{end}}`)
		list.Args = append(list.Args, pkgs...)
		var stderr bytes.Buffer
		list.Stderr = &stderr
		targets, err := list.Output()
		if err != nil {
			return nil, fmt.Errorf("listing the plugin programs: %w\n%s", err, stderr.Bytes())
		}
		build := goCommand(ctx, root, "build", "-o", cache+string(os.PathSeparator))
		build.Args = append(build.Args, pkgs...)
		if out, err := build.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("building the plugin programs: %w\n%s", err, out)
		}
		// Only this checkout's programs: the cache may hold others' too.
		var names []string
		for _, target := range strings.Fields(string(targets)) {
			names = append(names, filepath.Base(target))
		}
		return names, nil
	})
}

// buildKey is what a build through the program cache depends on: the
// sources under src, the go commands' environment and the build's own
// arguments (stamp.go).
type buildKey struct {
	src       string
	env, args []string
}

// throughCache runs build in the folder sub of this machine's program
// cache, holding that folder's lock, and copies the programs build names
// from there into dir, each replacing its file whole (buildPackages says
// why). Where the folder's stamp says its programs were built from the
// same sources and settings as key, and they are as that build left them,
// build is not run (stamp.go).
func throughCache(sub, dir string, key buildKey, build func(cache string) ([]string, error)) error {
	base, err := programCache()
	if err != nil {
		return err
	}
	cache := filepath.Join(base, sub)
	if err := os.MkdirAll(cache, 0o755); err != nil { // files.Copy makes dir
		return err
	}
	digest, err := sourceKey(key.src, key.env, key.args)
	if err != nil {
		return fmt.Errorf("reading the sources of the programs: %w", err)
	}
	unlock, err := files.Lock(filepath.Join(cache, ".lock"))
	if err != nil {
		return err
	}
	defer unlock()
	stampFile := stampPath(cache, strings.Join(key.args, "\x00"))
	names, ok := stamped(cache, stampFile, digest)
	if !ok {
		if names, err = build(cache); err != nil {
			return err
		}
		if err := writeStamp(cache, stampFile, digest, names); err != nil {
			return fmt.Errorf("recording the programs built: %w", err)
		}
	}
	for _, name := range names {
		if err := files.Copy(filepath.Join(cache, name), filepath.Join(dir, name), 0o755); err != nil {
			return fmt.Errorf("copying the program %s from the program cache: %w", name, err)
		}
	}
	return nil
}

// goCommand is go with args in root, as the plugin programs are built:
// -trimpath and no VCS stamp, so a program's bytes depend on its sources
// only (a clean clone or a new commit that leaves a plugin alone reuses the
// build cache and its image's layers); no DWARF (-w), which halves a link.
func goCommand(ctx context.Context, root string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), goCommandEnv(root)...)
	return cmd
}

// goCommandEnv is what goCommand sets beyond the caller's environment.
func goCommandEnv(root string) []string {
	return append(goToolchainEnv(root), "CGO_ENABLED=0", "GOFLAGS=-mod=mod -trimpath -buildvcs=false -ldflags=-w")
}

// goToolchainEnv sets GOTOOLCHAIN for a build of the module at dir as the
// tools' builds choose it (toolchain.GoToolchainFor): the harness's go.mod
// may need a newer Go than the machine's, and the same compiler for the same
// packages is what lets the plugin programs, the Helm plugin and the tools
// share Go's build cache with the harness. "+auto" lets a `go get` that
// moves the module's go line past that toolchain (a newer Helm SDK) switch
// as Go would, instead of failing.
func goToolchainEnv(dir string) []string {
	tc, err := toolchain.ModuleGoToolchain(filepath.Join(dir, "go.mod"))
	if err != nil {
		return nil // the go command will name the go.mod it cannot read
	}
	return []string{"GOTOOLCHAIN=" + tc + "+auto"}
}

// programCache is this machine's folder of plugin programs (see
// buildPackages), beside the tools' cache.
func programCache() (string, error) {
	base, err := toolchain.DefaultCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "programs"), nil
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
func Stage(sources map[string]string) (string, error) {
	tmp, err := os.MkdirTemp("", "cmpc-image-")
	if err != nil {
		return "", err
	}
	for name, src := range sources {
		info, err := os.Stat(src)
		if err == nil {
			err = files.Copy(src, filepath.Join(tmp, name), info.Mode().Perm())
		}
		if err != nil {
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
