package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/pluginimage"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
	"github.com/cmp-conformance/cmp-conformance/suites/render"
)

// renderFlags are render's flags.
type renderFlags struct {
	pluginDir, image, config           string
	pluginPath                         []string
	argocdVersion, argocdBinary        string
	path, appName, namespace, project  string
	repo, revision                     string
	kubeVersion, apiVersions, tracking string
	params, env                        []string
	paramsJSON, output                 string
	samples, sample                    string
	named, watch, explain, keep        bool
	tmpDirs                            []string
	timeout                            time.Duration
	// timings is where a render appends its times (make bench); began is
	// when the command started.
	timings string
	began   time.Time
}

func renderCommand() *cobra.Command {
	var f renderFlags
	cmd := &cobra.Command{
		Use:   "render FOLDER",
		Short: "Print what your plugin renders for a sample folder, through the real Argo CD, without a cluster",
		Long: `render sends a sample folder (its files become the root of a git repository)
through Argo CD's own repo-server and your plugin's argocd-cmp-server, as the
application controller does for an Application, and prints the manifests Argo
CD would apply: discovery (or the plugin named), the tar exclusions, the
ARGOCD_APP_*, ARGOCD_ENV_* and PARAM_* variables, KUBE_VERSION and
KUBE_API_VERSIONS. No Kubernetes cluster is started; what a cluster would
supply has the defaults below. The plugin's error is printed and the exit
status is 1 when it fails; 2 on bad usage.

  cmp-conformance render ./samples/basic --plugin-dir ./plugin --plugin-path ./bin
  cmp-conformance render ./samples/basic --image my-plugin:1.4 --param replicas=2 --env REGION=eu
  cmp-conformance render ./samples/basic --image my-plugin:1.4 --param-json '[{"name":"tags","array":["a","b"]}]' -o json
  cmp-conformance render --sample basic --image my-plugin:1.4 --watch   # certify.yaml's sample, again on every change

The binaries are cached after the first run (argocd, helm, kustomize of the
version); a render then takes one to two seconds, most of it starting the
repo-server and the plugin (docs/performance.md has this machine's figures).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.began = time.Now()
			return f.run(cmd.Context(), args, runRender)
		}}
	f.bind(cmd.Flags())
	fl := cmd.Flags()
	fl.StringVarP(&f.output, "output", "o", "yaml", "yaml (documents) or json (an array of objects)")
	fl.BoolVarP(&f.watch, "watch", "w", false, "render again on every change of FOLDER or of the plugin (--plugin-dir, --plugin-path, --config: the plugin is restarted), printing what changed, object by object; Ctrl-C stops")
	fl.BoolVar(&f.explain, "explain", false, "say on stderr which discover rule selected the sample (our reading beside Argo CD's own answer), what the plugin received (environment, parameters, files with modes and links) and each phase's time")
	fl.BoolVar(&f.keep, "keep", false, "keep the working copy the plugin received (as Argo CD streamed it, before its init command) in a new folder, and say where")
	fl.StringVar(&f.timings, "timings", "", "append this render's times (ready, render, total with the teardown) to FILE as a JSON line, as make bench does")
	return cmd
}

// bind adds the flags render and announce share: the plugin, the Argo CD,
// the sample and what the application and the cluster would give it.
func (f *renderFlags) bind(fl *pflag.FlagSet) {
	fl.StringVar(&f.pluginDir, "plugin-dir", "", "the plugin as a folder of this host holding plugin.yaml (its programs on --plugin-path)")
	fl.StringArrayVar(&f.pluginPath, "plugin-path", nil, "with --plugin-dir: folder of the programs plugin.yaml names (first on its PATH)")
	fl.StringVar(&f.image, "image", "", "the plugin as the image it ships as (on this machine; nothing is pulled), run as Argo CD's sidecar")
	fl.StringVar(&f.config, "config", "", "with --image: a plugin.yaml mounted over the image's own")
	fl.StringVar(&f.argocdVersion, "argocd-version", os.Getenv("ARGOCD_VERSION"), "the Argo CD to render with: "+toolchain.VersionSpellings)
	fl.StringVar(&f.argocdBinary, "argocd-binary", "", "an argocd binary of your own instead of obtaining one")
	fl.StringVar(&f.repo, "repo", "", "a git repository URL that stands for FOLDER: the repo-server fetches it itself, as for an Application (https://, ssh://, git@host:path or file://; no credentials are given)")
	fl.StringVar(&f.revision, "revision", "", "with --repo: the branch, tag or commit to render (HEAD when empty)")
	fl.StringVar(&f.path, "path", ".", "the application's folder inside FOLDER (spec.source.path)")
	fl.StringVar(&f.samples, "samples", "certify.yaml", "with --sample: the certification file whose sample to render")
	fl.StringVar(&f.sample, "sample", "", "render this sample of --samples (its folder, parameters and env; --param and --env add to them) instead of a FOLDER")
	fl.BoolVar(&f.named, "named", false, "name the plugin in the source (spec.source.plugin.name) instead of leaving FOLDER to discovery; a plugin without discover is always named")
	fl.StringArrayVar(&f.params, "param", nil, "NAME=VALUE: a string parameter (spec.source.plugin.parameters), repeatable")
	fl.StringVar(&f.paramsJSON, "param-json", "", `parameters as an Application holds them, JSON: [{"name":"tags","array":["a"]},{"name":"labels","map":{"k":"v"}}]`)
	fl.StringArrayVar(&f.env, "env", nil, "NAME=VALUE: spec.source.plugin.env (your plugin sees ARGOCD_ENV_NAME), repeatable")
	fl.StringVar(&f.appName, "app-name", "render", "the application's name (ARGOCD_APP_NAME)")
	fl.StringVar(&f.namespace, "namespace", "default", "the application's destination namespace (ARGOCD_APP_NAMESPACE)")
	fl.StringVar(&f.project, "project", "default", "the application's project (ARGOCD_APP_PROJECT_NAME)")
	fl.StringVar(&f.kubeVersion, "kube-version", toolchain.KubernetesVersion, "the cluster's Kubernetes version (KUBE_VERSION), as the controller reports it")
	fl.StringVar(&f.apiVersions, "api-versions", "", "the cluster's API versions (KUBE_API_VERSIONS), comma-separated, e.g. apps/v1,networking.k8s.io/v1/Ingress; none by default")
	fl.StringVar(&f.tracking, "tracking-method", "annotation", "how Argo CD tracks resources: annotation (v3's default), label or annotation+label")
	fl.DurationVar(&f.timeout, "timeout", 10*time.Minute, "bound on the whole render, a first build of the binaries included")
}

// run reads the flags (bad usage is an error main prints and exits 2
// with), loads the plugin and calls do, bounded by --timeout and Ctrl-C;
// the plugin.yaml read from an image is kept until do returns.
func (f *renderFlags) run(ctx context.Context, args []string, do func(context.Context, *renderFlags, argocd.Plugin, render.Source, io.Writer, io.Writer) error) error {
	src, err := f.source(args)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	defer func() {
		for _, d := range f.tmpDirs {
			_ = os.RemoveAll(d)
		}
	}()
	p, err := f.plugin(ctx)
	if err != nil {
		return err
	}
	return do(ctx, f, p, src, os.Stdout, os.Stderr)
}

// start starts a renderer with the plugin as --argocd-version and
// --plugin-path say (the tap of --explain when explain).
func (f *renderFlags) start(ctx context.Context, p argocd.Plugin, explain bool, stderr io.Writer) (*render.Renderer, error) {
	var paths []string
	for _, d := range f.pluginPath {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, err
		}
		paths = append(paths, abs)
	}
	return render.Start(ctx, render.Options{ArgoCDVersion: f.argocdVersion, ArgoCDBinary: f.argocdBinary, Plugin: p, PluginPath: paths,
		Toolchain: toolchain.Options{Progress: stderr}, Progress: io.Discard, Explain: explain})
}

// checkRepoURL refuses what no git client would fetch, before anything
// starts.
func checkRepoURL(u string) error {
	for _, prefix := range []string{"https://", "http://", "ssh://", "git://", "file://"} {
		if strings.HasPrefix(u, prefix) && len(u) > len(prefix) {
			return nil
		}
	}
	if at := strings.Index(u, "@"); at > 0 && strings.Contains(u[at:], ":") { // git@host:org/repo
		return nil
	}
	return fmt.Errorf("--repo %q: give a git URL (https://, ssh://, git://, file:// or git@host:path)", u)
}

// source reads the flags (and the certify.yaml sample they name) into a
// render.Source, refusing bad usage.
func (f *renderFlags) source(args []string) (render.Source, error) {
	var src render.Source
	var sample *conformance.Sample
	folder := ""
	switch {
	case f.repo != "" && (len(args) > 0 || f.sample != ""):
		return src, errors.New("--repo stands for the sample: give it without a FOLDER or --sample")
	case f.repo != "" && f.watch:
		return src, errors.New("--watch watches a folder of this machine: render a --repo without it")
	case f.repo != "":
		if err := checkRepoURL(f.repo); err != nil {
			return src, err
		}
	case f.revision != "":
		return src, errors.New("--revision goes with --repo")
	case len(args) == 1 && f.sample == "":
		folder = args[0]
	case len(args) == 0 && f.sample != "":
		cert, err := conformance.LoadCertification(f.samples)
		if err != nil {
			return src, err
		}
		i := slices.IndexFunc(cert.Samples, func(s conformance.Sample) bool { return s.Name == f.sample })
		if i < 0 {
			var names []string
			for _, s := range cert.Samples {
				names = append(names, s.Name)
			}
			return src, fmt.Errorf("--sample %s: %s has no such sample (it has %s)", f.sample, f.samples, strings.Join(names, ", "))
		}
		sample = &cert.Samples[i]
		folder = filepath.Join(cert.Dir, cert.SourcePath(sample.Path))
	default:
		return src, errors.New("give the sample as a FOLDER, or as --sample NAME of --samples certify.yaml (its parameters and env too), one of them")
	}
	if fi, err := os.Stat(folder); f.repo == "" && (err != nil || !fi.IsDir()) {
		return src, fmt.Errorf("%s is not a folder: give the sample's folder (its files become the repository's root)", folder)
	}
	switch {
	case (f.pluginDir == "") == (f.image == ""):
		return src, errors.New("give the plugin with --plugin-dir DIR (a folder with plugin.yaml) or --image IMAGE, one of them")
	case f.config != "" && f.image == "":
		return src, errors.New("--config goes with --image")
	case f.output != "yaml" && f.output != "json":
		return src, fmt.Errorf("--output %q: give yaml or json", f.output)
	case f.timeout <= 0:
		return src, fmt.Errorf("--timeout %s: give a positive bound, e.g. 5m", f.timeout)
	case f.timings != "" && f.watch:
		return src, errors.New("--timings times one render: leave out --watch")
	case f.keep && f.watch:
		return src, errors.New("--keep keeps the working copy of one render: leave out --watch (--explain explains every render)")
	}
	switch f.tracking {
	case "annotation", "label", "annotation+label":
	default:
		return src, fmt.Errorf("--tracking-method %q: give annotation, label or annotation+label", f.tracking)
	}
	abs := ""
	if folder != "" {
		var err error
		if abs, err = filepath.Abs(folder); err != nil {
			return src, err
		}
	}
	src = render.Source{Folder: abs, RepoURL: f.repo, Revision: f.revision, Path: f.path, Named: f.named, AppName: f.appName, Namespace: f.namespace, Project: f.project,
		KubeVersion: f.kubeVersion, TrackingMethod: f.tracking}
	if f.apiVersions != "" {
		src.APIVersions = strings.Split(f.apiVersions, ",")
	}
	if sample != nil {
		src.Parameters = slices.Clone(sample.Parameters)
		for _, e := range sample.Env {
			src.Env = append(src.Env, &v1alpha1.EnvEntry{Name: e.Name, Value: e.Value})
		}
	}
	if f.paramsJSON != "" {
		var more []v1alpha1.ApplicationSourcePluginParameter
		if err := json.Unmarshal([]byte(f.paramsJSON), &more); err != nil {
			return src, fmt.Errorf("--param-json: %w", err)
		}
		src.Parameters = append(src.Parameters, more...)
	}
	for _, kv := range f.params {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			return src, fmt.Errorf("--param %q: want NAME=VALUE", kv)
		}
		src.Parameters = append(src.Parameters, v1alpha1.ApplicationSourcePluginParameter{Name: name, String_: &value})
	}
	for _, kv := range f.env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			return src, fmt.Errorf("--env %q: want NAME=VALUE", kv)
		}
		src.Env = append(src.Env, &v1alpha1.EnvEntry{Name: name, Value: value})
	}
	var err error
	if f.argocdVersion, err = toolchain.SpellVersion(f.argocdVersion); err != nil {
		return src, err
	}
	return src, nil
}

// plugin loads the plugin, from its folder or its image.
func (f *renderFlags) plugin(ctx context.Context) (argocd.Plugin, error) {
	if f.image == "" {
		// Absolute: argocd-cmp-server runs in a folder of the run.
		dir, err := filepath.Abs(f.pluginDir)
		if err != nil {
			return argocd.Plugin{}, err
		}
		return argocd.LoadPlugin(dir)
	}
	if err := pluginimage.Ping(ctx); err != nil {
		return argocd.Plugin{}, err
	}
	dir, err := os.MkdirTemp("", "cmpc-render-plugin-")
	if err != nil {
		return argocd.Plugin{}, err
	}
	f.tmpDirs = append(f.tmpDirs, dir)
	if f.config != "" {
		return argocd.LoadPluginImageWithConfig(ctx, f.image, f.config, dir)
	}
	return argocd.LoadPluginImage(ctx, f.image, dir, dir)
}

// runRender starts the renderer, renders once and prints the manifests;
// with --watch it renders again on every change of the sample or of the
// plugin (render.Loop) and prints what changed.
func runRender(ctx context.Context, f *renderFlags, p argocd.Plugin, src render.Source, stdout, stderr io.Writer) error {
	start := func(p argocd.Plugin) (*render.Renderer, error) { return f.start(ctx, p, f.explain || f.keep, stderr) }
	began := time.Now()
	r, err := start(p)
	if err != nil {
		return err
	}
	timing := render.Timing{At: f.began, Plugin: "folder", ArgoCD: r.Tools.ArgoCDVersion, ReadySeconds: time.Since(f.began).Seconds()}
	if f.image != "" {
		timing.Plugin = "image"
	}
	defer func() {
		if err := r.Close(); err != nil {
			fmt.Fprintln(stderr, "render: stopping:", err)
		}
		if f.timings != "" && timing.RenderSeconds > 0 {
			timing.TotalSeconds = time.Since(f.began).Seconds()
			if err := render.AppendTiming(f.timings, timing); err != nil {
				fmt.Fprintln(stderr, "render: --timings:", err)
			}
		}
	}()
	fmt.Fprintf(stderr, "render: Argo CD %s and %s ready in %.1fs\n", r.Tools.ArgoCDVersion, p.FullName(), time.Since(began).Seconds())
	// What --watch looks at besides the sample: what the plugin is made of.
	pluginFiles := append([]string{}, f.pluginPath...)
	if f.pluginDir != "" {
		pluginFiles = append(pluginFiles, f.pluginDir)
	}
	if f.config != "" {
		pluginFiles = append(pluginFiles, f.config)
	}
	loop := &render.Loop{Source: src, Out: stdout, Log: stderr,
		Start: func(ctx context.Context) (*render.Renderer, argocd.Plugin, error) {
			np, err := f.plugin(ctx)
			if err != nil {
				return nil, np, err
			}
			nr, err := start(np)
			return nr, np, err
		},
		PluginState: func(ctx context.Context) (string, error) {
			files, err := render.Fingerprint(pluginFiles...)
			if err != nil || f.image == "" {
				return files, err
			}
			// The tag may come to name another image (docker build -t).
			img, err := pluginimage.Inspect(ctx, f.image)
			return files + " " + img.ID, err
		},
		Rendered: func(res *render.Result) error { return printManifests(stdout, res.Manifests, f.output) },
	}
	if f.explain || f.keep {
		loop.Explained = func(e *render.Explanation) {
			if f.explain {
				e.Write(stderr)
			}
			if f.keep {
				dir, err := e.Keep()
				if err != nil {
					fmt.Fprintln(stderr, "render: --keep:", err)
					return
				}
				fmt.Fprintf(stderr, "render: the working copy %s received (before its init command) is kept at %s\n", p.FullName(), dir)
			}
		}
	}
	if f.watch {
		r, err = loop.Run(ctx, r, p)
		return err
	}
	res, err := loop.Once(ctx, r, p)
	if err != nil {
		return exitError{code: 1}
	}
	timing.RenderSeconds = res.Seconds
	return printManifests(stdout, res.Manifests, f.output)
}

// printManifests writes the manifests (JSON each) as YAML documents or a
// JSON array.
func printManifests(w io.Writer, manifests []string, output string) error {
	if output == "json" {
		objs := make([]json.RawMessage, len(manifests))
		for i, m := range manifests {
			objs[i] = json.RawMessage(m)
		}
		data, err := json.MarshalIndent(objs, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", data)
		return err
	}
	for i, m := range manifests {
		y, err := yaml.JSONToYAML([]byte(m))
		if err != nil {
			return err
		}
		if i > 0 {
			if _, err := io.WriteString(w, "---\n"); err != nil {
				return err
			}
		}
		if _, err := w.Write(y); err != nil {
			return err
		}
	}
	return nil
}
