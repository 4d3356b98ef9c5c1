// Package render is the plugin author's inner loop: a sample folder
// rendered through the real Argo CD of a version (its repo-server and the
// plugin's argocd-cmp-server, a host program or its image as a sidecar)
// without a Kubernetes cluster. The repo-server prepares and streams the
// source exactly as for an Application, so the manifests are what Argo CD
// would apply. A Renderer stays up between renders: each render is a new
// commit of a new repository, so no cache answers.
package render

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/reposerver/apiclient"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/gitserver"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
	"github.com/cmp-conformance/cmp-conformance/internal/podshm"
	"github.com/cmp-conformance/cmp-conformance/internal/proc"
)

// Options say which Argo CD and which plugin render.
type Options struct {
	// ArgoCDVersion "" is the newest of the matrix this machine can obtain;
	// ArgoCDBinary a binary of your own.
	ArgoCDVersion, ArgoCDBinary string
	// Plugin is loaded (argocd.LoadPlugin, LoadPluginImage); PluginPath the
	// folders of its programs when it is a host plugin.
	Plugin     argocd.Plugin
	PluginPath []string
	Toolchain  toolchain.Options
	// Dir holds the run's files (removed by Close); "" makes a temporary one.
	Dir string
	// PortBase lays out the ports (argocd.PortsFrom); 0 is 28000.
	PortBase int
	Progress io.Writer
	// Explain puts a tap between the repo-server and the plugin, so that
	// Explain can say what each render went through.
	Explain bool
}

// Renderer is a running repo-server with the plugin, and a git server.
type Renderer struct {
	Tools  *toolchain.Set
	Phases []argocd.Phase
	repo   *argocd.RepoServer
	git    *gitserver.Server
	group  *proc.Group
	dir    string
	tmpDir bool
	n      int
	closed bool
	plugin argocd.Plugin
}

// Start obtains the version's binaries (cached after the first time) and
// starts the git server, redis, the repo-server and the plugin's server.
func Start(ctx context.Context, o Options) (_ *Renderer, err error) {
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	if o.PortBase == 0 {
		o.PortBase = 28000
	}
	r := &Renderer{dir: o.Dir}
	if r.dir == "" {
		note := func(why string) { fmt.Fprintf(o.Progress, "note: %s\n", why) }
		if r.dir, err = podshm.MkdirTemp("cmpc-render-", note); err != nil {
			return nil, err
		}
		r.tmpDir = true
	}
	r.group = proc.NewGroup("")
	defer func() {
		if err != nil {
			err = fmt.Errorf("%w%s", err, closeErr(r.Close()))
		}
	}()
	start := time.Now()
	tc, err := toolchain.New(o.Toolchain)
	if err != nil {
		return nil, err
	}
	// Helm and kustomize too: the repo-server runs them for sources of
	// their kind, and a plugin may call the ones the image ships.
	if r.Tools, err = tc.Resolve(ctx, toolchain.Request{ArgoCDVersion: o.ArgoCDVersion, ArgoCDBinary: o.ArgoCDBinary,
		Tools: []string{toolchain.Helm, toolchain.Kustomize}}); err != nil {
		return nil, err
	}
	r.Phases = append(r.Phases, argocd.Phase{Name: "binaries", Seconds: time.Since(start).Seconds()})
	if r.git, err = gitserver.Start(ctx, gitserver.Options{Dir: filepath.Join(r.dir, "git")}); err != nil {
		return nil, err
	}
	p := o.Plugin
	p.PathDirs = append(p.PathDirs, o.PluginPath...)
	r.plugin = p
	r.repo, err = argocd.StartRepoServer(ctx, argocd.Options{
		Binary: r.Tools.Binaries[toolchain.ArgoCD].Path, Version: r.Tools.ArgoCDVersion,
		Dir: filepath.Join(r.dir, "argocd"), LogDir: filepath.Join(r.dir, "logs"), Ports: argocd.PortsFrom(o.PortBase),
		ToolDirs: r.Tools.ToolDirs(), ImageEnv: r.Tools.ComponentEnv(), Plugins: []argocd.Plugin{p}, Group: r.group,
		ImageOwner: r.dir, Progress: o.Progress,
	}, o.Explain)
	if err != nil {
		return nil, err
	}
	r.Phases = append(r.Phases, r.repo.Phases...)
	return r, nil
}

func closeErr(err error) string {
	if err == nil {
		return ""
	}
	return " (and stopping: " + err.Error() + ")"
}

// Source is one sample as an Application would deploy it.
type Source struct {
	// Folder is the sample: its files become the root of the repository.
	Folder string
	// RepoURL and Revision, when RepoURL is set, stand for Folder: the
	// repo-server fetches that repository itself, at that revision (a
	// branch, tag or commit; HEAD when empty), as for an Application.
	RepoURL, Revision string
	// Path is the application's folder inside it ("." for the root).
	Path string
	// Named sends spec.source.plugin.name (the plugin's full name) instead
	// of leaving the folder to discovery; a plugin without discover rules
	// is always named.
	Named      bool
	Parameters []v1alpha1.ApplicationSourcePluginParameter
	Env        v1alpha1.Env
	// What a cluster would supply.
	AppName, Namespace, Project string
	KubeVersion                 string
	APIVersions                 []string
	// TrackingMethod is annotation (v3's default), label or annotation+label.
	TrackingMethod string
}

// String names the sample: its folder, or its repository and revision.
func (s Source) String() string {
	if s.RepoURL != "" {
		return s.RepoURL + "@" + cmp.Or(s.Revision, "HEAD")
	}
	return s.Folder
}

// Result is what one render gave.
type Result struct {
	// Manifests are the objects, each as JSON, in the plugin's order.
	Manifests  []string
	SourceType string
	Revision   string
	Seconds    float64
}

// source commits src.Folder as a new repository (or takes src.RepoURL as
// it is) and makes the application source that deploys it, as an
// Application's spec.source would, with the revision to ask for.
func (r *Renderer) source(ctx context.Context, src Source, pluginName string) (v1alpha1.ApplicationSource, string, error) {
	var app v1alpha1.ApplicationSource
	rev := cmp.Or(src.Revision, "HEAD")
	if src.RepoURL != "" {
		app = v1alpha1.ApplicationSource{RepoURL: src.RepoURL, Path: src.Path, TargetRevision: rev}
	} else {
		r.n++
		repo := fmt.Sprintf("render-%d", r.n)
		var err error
		if rev, err = r.git.CreateRepo(ctx, repo, os.DirFS(src.Folder), "."); err != nil {
			return v1alpha1.ApplicationSource{}, "", fmt.Errorf("committing %s: %w", src.Folder, err)
		}
		app = v1alpha1.ApplicationSource{RepoURL: r.git.URL(repo), Path: src.Path, TargetRevision: "HEAD"}
	}
	// A plugin without discover rules is only ever named (Argo CD never
	// discovers it).
	named := src.Named || !r.plugin.Features[argocd.FeatureDiscovery]
	if named || len(src.Parameters) > 0 || len(src.Env) > 0 {
		app.Plugin = &v1alpha1.ApplicationSourcePlugin{Env: src.Env, Parameters: src.Parameters}
		if named {
			app.Plugin.Name = pluginName
		}
	}
	return app, rev, nil
}

// Render commits src.Folder as a new repository and asks the repo-server
// for its manifests, as the application controller does (no cache).
func (r *Renderer) Render(ctx context.Context, src Source, pluginName string) (*Result, error) {
	start := time.Now()
	app, rev, err := r.source(ctx, src, pluginName)
	if err != nil {
		return nil, err
	}
	resp, err := r.repo.Generate(ctx, &apiclient.ManifestRequest{
		Repo: &v1alpha1.Repository{Repo: app.RepoURL}, Revision: rev, NoCache: true,
		AppLabelKey: "app.kubernetes.io/instance", AppName: src.AppName, Namespace: src.Namespace,
		ApplicationSource: &app, KubeVersion: src.KubeVersion, ApiVersions: src.APIVersions,
		TrackingMethod: src.TrackingMethod, ProjectName: src.Project, ProjectSourceRepos: []string{"*"},
	})
	if err != nil {
		return nil, err
	}
	return &Result{Manifests: resp.Manifests, SourceType: resp.SourceType, Revision: resp.Revision, Seconds: time.Since(start).Seconds()}, nil
}

// Announce commits src.Folder as a new repository and asks the repo-server
// for its details as the API server does for the UI's parameter form: the
// plugin's parameter announcements, static and dynamic merged as the UI
// gets them, and the source type Argo CD gave the sample.
func (r *Renderer) Announce(ctx context.Context, src Source, pluginName string) ([]*apiclient.ParameterAnnouncement, string, error) {
	app, rev, err := r.source(ctx, src, pluginName)
	if err != nil {
		return nil, "", err
	}
	app.TargetRevision = rev
	resp, err := r.repo.AppDetails(ctx, &apiclient.RepoServerAppDetailsQuery{
		Repo: &v1alpha1.Repository{Repo: app.RepoURL}, Source: &app, AppName: src.AppName, NoCache: true, NoRevisionCache: true,
		TrackingMethod: src.TrackingMethod,
	})
	if err != nil {
		return nil, "", err
	}
	if resp.Plugin == nil {
		return nil, resp.Type, nil
	}
	return resp.Plugin.ParametersAnnouncement, resp.Type, nil
}

// Explain says what the renders since the last Explain went through (the
// last one's discovery and what the plugin received), read from the calls
// the repo-server made to the plugin; Start with Options.Explain.
func (r *Renderer) Explain() (*Explanation, error) {
	if r.repo == nil || len(r.repo.Taps) == 0 {
		return nil, errors.New("the renderer was started without Options.Explain")
	}
	return explain(r.repo.Taps, map[string]argocd.Plugin{r.plugin.FullName(): r.plugin}, r.Phases)
}

// Close stops everything Start started and removes the run's files when
// they were a temporary folder; once (a Loop closes the renderer it
// replaces, its caller the last).
func (r *Renderer) Close() error {
	if r == nil || r.closed {
		return nil
	}
	r.closed = true
	var errs []error
	if r.repo != nil {
		errs = append(errs, r.repo.Stop())
	}
	errs = append(errs, r.group.Stop(5*time.Second))
	if r.git != nil {
		errs = append(errs, r.git.Close())
	}
	if r.tmpDir {
		errs = append(errs, os.RemoveAll(r.dir))
	}
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
