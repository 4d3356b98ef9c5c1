package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cmp-conformance/cmp-conformance/clusters/existing"
	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
	"github.com/cmp-conformance/cmp-conformance/fixtures/extension"
	"github.com/cmp-conformance/cmp-conformance/fixtures/pluginimage"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
	"github.com/cmp-conformance/cmp-conformance/plugins"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

// envFlags are the flags that decide the environment, shared by run and env up.
type envFlags struct {
	runtime, argocdVersion, argocdBinary, kubeconfig, output string
	// argocdSource is a checkout of argo-cd to build and judge;
	// argocdImage an image of Argo CD to install as it is (kind).
	argocdSource, argocdImage  string
	portBase                   int
	plugins                    []string
	pluginPath                 []string
	images                     []string
	noDownload, noBuild, retry bool
	allowExistingArgoCD        bool
	imageRegistry              string
	readyTimeout               time.Duration
	workTmpfs                  bool
	// pluginBin, set for the shares of a parallel run (hidden), is the
	// folder where the parent built the plugin programs: they are used from
	// there, not built again.
	pluginBin string
	// certify, set by the certify command, is its subject: the run is of
	// the plugin profile.
	certify *certifySubject
}

func (f *envFlags) bind(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.runtime, "runtime", envOr("CMPC_RUNTIME", environment.RuntimeEmbedded), "where Kubernetes comes from: embedded (kwok, Argo CD as processes), kind (Argo CD installed from its release manifests, plugins as the repo-server's sidecars from --plugin-image) or existing (the same, into a namespace of its own of the cluster --kubeconfig names, the run's images pushed to --image-registry)")
	fl.StringVar(&f.argocdVersion, "argocd-version", os.Getenv("ARGOCD_VERSION"), "the Argo CD to run: "+toolchain.VersionSpellings+". The matrix is Argo CD's three supported lines, each by its newest patch, from the module proxy's version lists (the versions written in the code when none can be had); without this flag the newest line is tried first")
	fl.StringVar(&f.argocdBinary, "argocd-binary", "", "use this argocd binary (e.g. the official argocd-linux-amd64) instead of obtaining one")
	fl.StringVar(&f.argocdSource, "argocd-source", "", "build the Argo CD under test from this checkout of github.com/argoproj/argo-cd (any commit; its install manifests and tool pins too); the version is its VERSION file's marked with the tree's digest, e.g. v3.6.1+src.0123456789ab. On kind its image too, laid out as the release's Dockerfile lays it out, named cmp-conformance/argocd:<that version>")
	fl.StringVar(&f.argocdImage, "argocd-image", "", "with --runtime kind: run Argo CD's workloads from this image of this machine (a release candidate, the image a CI just built; nothing is pulled) in place of the one the install manifests of --argocd-version name; recorded with its image ID in the report")
	fl.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig of the cluster, for --runtime existing (never one that runs an Argo CD you keep: see --allow-existing-argocd)")
	fl.StringVar(&f.output, "output", "_output", "folder for reports (<output>/reports/<run-id>), plugin programs and environment state")
	fl.IntVar(&f.portBase, "port-base", 18080, "first of the 127.0.0.1 ports a run listens on: Argo CD and its git server base..base+8, plugin services from base+10, the embedded cluster base+40..base+45")
	fl.StringArrayVar(&f.plugins, "plugin", nil, "ROLE=DIR: run the checks of ROLE against the plugin in DIR (a folder with plugin.yaml); roles: "+plugins.RoleList())
	fl.StringArrayVar(&f.images, "plugin-image", nil, "ROLE=IMAGE: run the checks of ROLE against the plugin image IMAGE as it ships (present on this machine: nothing is pulled), run as Argo CD's documented sidecar (argocd-cmp-server of the version as entrypoint, uid 999); its plugin.yaml is read from "+pluginimage.ConfigPath)
	fl.StringArrayVar(&f.pluginPath, "plugin-path", nil, "folder of programs your plugin.yaml commands name (put first on the plugin's PATH)")
	fl.BoolVar(&f.noDownload, "no-download", false, "never download release binaries (build from source)")
	fl.BoolVar(&f.noBuild, "no-build", false, "never build binaries from source")
	fl.BoolVar(&f.retry, "retry-toolchain", false, "retry obtaining versions that failed before (failures are remembered)")
	fl.StringVar(&f.imageRegistry, "image-registry", os.Getenv("CMPC_IMAGE_REGISTRY"), "with --runtime existing: HOST:PORT[/PATH] of a registry this machine's Docker pushes to and the cluster's nodes pull from; the images the run makes (plugins, cmp-bridge, the git relay) go there")
	fl.BoolVar(&f.allowExistingArgoCD, "allow-existing-argocd", false, "with --runtime existing: run although the cluster already has an Argo CD (its CRDs are replaced by the version under test; a throw-away cluster only)")
	fl.DurationVar(&f.readyTimeout, "ready-timeout", 2*time.Minute, "bound on the cluster coming up, and on all Argo CD components becoming ready; counted from the run's turn (runs on one machine bring up one per two cores at a time)")
	fl.BoolVar(&f.workTmpfs, "work-tmpfs", true, "put the run's work folder (git repositories, the components' and plugins' scratch files, the embedded cluster's settings) on a tmpfs of a quarter of this machine's memory where it can (Linux, root, dockerd in this mount namespace): about a tenth less CPU than ext4; the report says which it got. false keeps it under TMPDIR's disk")
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func (f *envFlags) toolchainOptions() toolchain.Options {
	return toolchain.Options{NoDownload: f.noDownload, NoBuild: f.noBuild, Retry: f.retry, Progress: os.Stderr}
}

// pluginOverrides parses --plugin ROLE=DIR.
func (f *envFlags) pluginOverrides() (map[string]string, error) {
	out := map[string]string{}
	for _, p := range f.plugins {
		role, dir, ok := strings.Cut(p, "=")
		if !ok || role == "" || dir == "" {
			return nil, fmt.Errorf("--plugin %q: want ROLE=DIR, e.g. plain=./my-plugin", p)
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		out[role] = abs
	}
	return out, nil
}

// portSpan is how many ports from --port-base one environment may listen on
// (Argo CD base..base+8, plugin services from base+10, the embedded cluster
// base+40..base+45).
const portSpan = 50

// usage refuses, in microseconds, flags whose values cannot be right: read
// before anything that talks to Docker, a cluster or the module proxy. It
// also spells the version as the toolchain wants it (3.6.1 is v3.6.1).
func (f *envFlags) usage() error {
	v, err := toolchain.SpellVersion(f.argocdVersion)
	if err != nil {
		return fmt.Errorf("--argocd-version %w", err)
	}
	f.argocdVersion = v
	switch {
	case f.argocdSource != "" && (f.argocdVersion != "" || f.argocdBinary != ""):
		return errors.New("--argocd-source builds the Argo CD under test: leave out --argocd-version and --argocd-binary")
	case f.argocdSource != "" && f.runtime == environment.RuntimeExisting:
		return fmt.Errorf("--argocd-source on --runtime existing: the cluster pulls Argo CD's images as the manifests name them, and a checkout's build has no such image: use --runtime kind or embedded")
	case f.argocdImage != "" && f.runtime != environment.RuntimeKind:
		return fmt.Errorf("--argocd-image %s: only --runtime kind installs Argo CD from an image of this machine (embedded runs its binary: --argocd-binary or --argocd-source)", f.argocdImage)
	case f.argocdImage != "" && f.argocdSource != "":
		return errors.New("--argocd-image and --argocd-source both name the Argo CD under test: give one (--argocd-source builds its own image on kind)")
	case f.argocdSource != "" && !isFile(filepath.Join(f.argocdSource, "go.mod")):
		return fmt.Errorf("--argocd-source %s: not a checkout of argo-cd (no go.mod there)", f.argocdSource)
	case f.readyTimeout <= 0:
		return fmt.Errorf("--ready-timeout %s: give a positive duration, e.g. 2m", f.readyTimeout)
	case f.portBase < 1 || f.portBase+portSpan-1 > 65535:
		return fmt.Errorf("--port-base %d: a run listens on 127.0.0.1 ports %d..%d: give a base from 1 to %d, e.g. 18080", f.portBase, f.portBase, f.portBase+portSpan-1, 65535-portSpan+1)
	}
	dirs, err := f.pluginOverrides()
	if err != nil {
		return err
	}
	for _, role := range slices.Sorted(maps.Keys(dirs)) {
		if _, ok := plugins.Reference()[conformance.Role(role)]; !ok {
			return fmt.Errorf("--plugin %s=...: unknown role %q (roles: %s)", role, role, plugins.RoleList())
		}
		if conformance.Role(role).IsExtension() {
			// Read in full now: a folder without the layout is a usage error.
			if _, err := extension.Load(dirs[role]); err != nil {
				return fmt.Errorf("--plugin %s=%s: %w", role, dirs[role], err)
			}
		} else if _, err := os.Stat(filepath.Join(dirs[role], "plugin.yaml")); err != nil {
			return fmt.Errorf("--plugin %s=%s: want a folder with the plugin's plugin.yaml: %w", role, dirs[role], err)
		}
	}
	for _, dir := range f.pluginPath {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return fmt.Errorf("--plugin-path %s: not a folder of this machine", dir)
		}
	}
	_, err = f.pluginImages()
	return err
}

// validate answers bad flags before anything is built or started.
func (f *envFlags) validate() error {
	if err := f.usage(); err != nil {
		return err
	}
	switch f.runtime {
	case environment.RuntimeEmbedded:
	case environment.RuntimeKind:
		if err := pluginimage.Ping(context.Background()); err != nil {
			return fmt.Errorf("--runtime kind runs its nodes in Docker: %w", err)
		}
		if f.argocdImage != "" {
			if _, err := pluginimage.Inspect(context.Background(), f.argocdImage); err != nil {
				return fmt.Errorf("--argocd-image: %w", err)
			}
		}
	case environment.RuntimeExisting:
		if f.kubeconfig == "" {
			return errors.New("--runtime existing needs --kubeconfig PATH")
		}
		if _, err := os.Stat(f.kubeconfig); err != nil {
			return fmt.Errorf("--kubeconfig: %w", err)
		}
		if f.imageRegistry == "" {
			return errors.New("--runtime existing installs Argo CD in the cluster with the plugins as sidecars from images, which the cluster pulls: give --image-registry HOST:PORT, a registry this machine's Docker pushes to and the cluster's nodes pull from")
		}
		if err := pluginimage.Ping(context.Background()); err != nil {
			return fmt.Errorf("--runtime existing builds and pushes the plugins' images with Docker: %w", err)
		}
		if !f.allowExistingArgoCD {
			if err := existing.Preflight(context.Background(), f.kubeconfig, environment.ExistingNamespace); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("--runtime %q: choose embedded, existing or kind", f.runtime)
	}
	if f.imageRegistry != "" && f.runtime != environment.RuntimeExisting {
		return fmt.Errorf("--image-registry is where --runtime existing pushes the images its cluster pulls; --runtime %s needs none: drop it", f.runtime)
	}
	return f.validateImages()
}

// prepare plans the plugins (with the witnesses of profile when selfTest)
// and builds the reference programs: plugins.Prepare, from the flags.
func (f *envFlags) prepare(ctx context.Context, selfTest bool, profile string) (*plugins.Plan, []string, error) {
	if err := f.validate(); err != nil {
		return nil, nil, err
	}
	overrides, err := f.pluginOverrides()
	if err != nil {
		return nil, nil, err
	}
	images, err := f.pluginImages()
	if err != nil {
		return nil, nil, err
	}
	root, rootErr := repoRoot()
	if rootErr != nil {
		root = ""
		if f.certify == nil && len(overrides)+len(images) < len(plugins.Reference()) {
			return nil, nil, rootErr
		}
	}
	o := plugins.Options{
		Root: root, Overrides: overrides, Images: images, SelfTest: selfTest, Profile: profile,
		Runtime: f.runtime, Output: f.output, Prebuilt: f.pluginBin, PluginPath: f.pluginPath, Progress: os.Stderr,
	}
	if f.certify != nil {
		if f.certify.binding == nil {
			return nil, nil, errors.New("the subject was not read before the run (certifyUsage)")
		}
		o.Subject = f.certify.binding
	}
	return plugins.Prepare(ctx, o)
}

func (f *envFlags) config(runID, logDir string, plan *plugins.Plan, path []string) (environment.Config, error) {
	out, err := filepath.Abs(f.output)
	if err != nil {
		return environment.Config{}, err
	}
	return environment.Config{
		Runtime: f.runtime, ArgoCDVersion: f.argocdVersion, ArgoCDBinary: f.argocdBinary, ArgoCDSource: f.argocdSource, ArgoCDImage: f.argocdImage, Kubeconfig: f.kubeconfig,
		PortBase: f.portBase, Plugins: plan.Plugins, Extensions: plan.Extensions(), PluginPath: path, ToolsReady: plan.ToolsReady, RunID: runID, LogDir: logDir,
		StateFile: filepath.Join(out, "env", "state.json"), Toolchain: f.toolchainOptions(), Progress: os.Stderr,
		ReadyTimeout: f.readyTimeout, GitServerProgram: plan.Program("cmp-gitserver"), IdleProgram: plan.Program("cmp-idle"), BridgeProgram: plan.Program(argocd.BridgeProgram),
		SamplePlugin: plan.SamplePlugin(), ImageRegistry: f.imageRegistry, WorkOnDisk: !f.workTmpfs,
	}, nil
}
