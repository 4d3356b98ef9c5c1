package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apiclient"
	applicationpkg "github.com/argoproj/argo-cd/v3/pkg/apiclient/application"
	repositorypkg "github.com/argoproj/argo-cd/v3/pkg/apiclient/repository"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/mod/semver"
	"k8s.io/client-go/kubernetes"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
	"github.com/cmp-conformance/cmp-conformance/fixtures/kube"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
	"github.com/cmp-conformance/cmp-conformance/reports"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

type runFlags struct {
	envFlags
	labelFilter        string
	selfTest, failFast bool
	verbose            bool
	timeout            time.Duration
	upgradePath        string
	upgradeTimeout     time.Duration
	// parallel is the number of environments the checks are shared out to;
	// units is the share of one of them (set by the parent, hidden).
	parallel int
	units    string
	// fs is the command's flag set, for the reproduce command.
	fs *pflag.FlagSet
}

func runCommand() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Bring up Argo CD with the plugins, run the checks, write the report",
		Long: `run brings up the environment (see --runtime), runs the selected checks and
writes <output>/reports/<run-id>/ (report.json, report.yaml, junit.xml,
summary.md, report.html, logs/), with <output>/reports/latest pointing at it.
Results are recorded as each check finishes, so Ctrl-C still leaves a report
of what ran, and no process behind.

Verdict and exit status:
  passed      0  every Core check of the profile ran and passed, nothing failed
  failed      1  a Core or Extended check failed, a self-test mismatch, a run error
  partial     3  nothing failed, but some Core check did not run (filtered out by
                 --label-filter, not supported by the plugin, skipped)
  incomplete  3  interrupted, or no Core check ran
  (bad usage  2, before anything slow starts)
The lines under the verdict say why it is not passed.

Select checks with Ginkgo label expressions over IDs, areas, levels and
features: --label-filter 'smoke', 'Core && !Provisional', 'SMOKE-002'.

An upgrade run (--upgrade-path) is the upgrade profile: it brings up the
path's first version, creates applications of the parameterized, Helm and
service plugins (parameters set, synced automatically), then moves Argo CD
along the path, version by version, and runs the UPG checks after each hop:

  --upgrade-path previous                    # v3.5.7 -> v3.6.1 -> v3.5.7
  --upgrade-path oldest                      # v3.4.13 -> v3.6.1
  --upgrade-path legacy                      # v2.14.21 -> v3.6.1
  --upgrade-path v3.4.13,v3.5.7,v3.6.1       # any versions, in order

A plugin that ships as an image is judged as it ships: --plugin-image
ROLE=IMAGE runs it as Argo CD's documented sidecar (the version's
argocd-cmp-server as its entrypoint, uid 999, the repo-server's socket folder
shared). The image must be on this machine; nothing is pulled.

  --plugin-image parameterized=my-plugin:1.4

A parallel run (--parallel N, embedded runtime only, not with --upgrade-path)
shares the catalogue out to N environments side by side, each a child process
with its own cluster, Argo CD, plugins and ports (--port-base + 100 per
environment): the checks of the reference plugins one by one, each witness of
--self-test whole, balanced by the seconds each took in the newest earlier
reports under --output (else by reference timings). Their results are merged
into one report; each environment's own report stays under its shares/N, its
logs under logs/share-N. Ctrl-C stops every environment and still writes the
merged report.

The matrix: v3.6.1 (current), v3.5.7 (previous), v3.4.13 (oldest supported
line), v2.14.21 (legacy). The names offline-previous and offline-legacy of
earlier releases are aliases of previous and legacy.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return run(&f) },
	}
	f.bind(cmd)
	fl := cmd.Flags()
	f.fs = fl
	fl.StringVar(&f.labelFilter, "label-filter", os.Getenv("LABEL_FILTER"), "Ginkgo label filter selecting checks (IDs, areas, levels, features)")
	fl.BoolVar(&f.selfTest, "self-test", false, "also run each check against the broken witnesses in plugins/broken, which must fail the checks they violate")
	fl.BoolVar(&f.failFast, "fail-fast", false, "stop at the first failed check")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "verbose Ginkgo output")
	fl.DurationVar(&f.timeout, "timeout", 2*time.Hour, "bound on the whole suite")
	fl.StringVar(&f.upgradePath, "upgrade-path", "", "run the upgrade profile along these Argo CD versions: a path name ("+strings.Join(upgradePathNames(), ", ")+") or versions separated by commas")
	fl.DurationVar(&f.upgradeTimeout, "upgrade-timeout", 3*time.Minute, "bound on each application's return to Synced and Healthy after a hop (UPG-001)")
	fl.IntVar(&f.parallel, "parallel", envInt("PARALLEL", 1), "share the checks out to this many environments run side by side (each its own cluster, Argo CD and ports from --port-base + 100 per share), then merge their results into one report; checks mostly wait on Argo CD, so 3 suit 2 cores")
	fl.StringVar(&f.units, "units", "", "the share of one environment of a parallel run (set by --parallel)")
	_ = fl.MarkHidden("units")
	fl.StringVar(&f.pluginBin, "plugin-bin", "", "the plugin programs a parallel run built (set by --parallel)")
	_ = fl.MarkHidden("plugin-bin")
	return cmd
}

// cutShort says whether err is only the interruption of ctx (Ctrl-C,
// SIGTERM) surfacing through whatever it stopped: such a run is incomplete,
// not failed.
func cutShort(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled)
}

func run(f *runFlags) error {
	// A bad filter makes Ginkgo exit the process from inside RunSpecs, after
	// the bring-up and with nothing torn down: check it before anything starts.
	if _, err := types.ParseLabelFilter(f.labelFilter); err != nil {
		return fmt.Errorf("--label-filter %q: %w", f.labelFilter, err)
	}
	path, err := f.upgrade()
	if err != nil {
		return err
	}
	if err := f.validate(); err != nil {
		return err
	}
	if err := f.parallelUsage(); err != nil {
		return err
	}
	if err := f.certifyUsage(); err != nil {
		return err
	}
	if err := f.checkVersions(path); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if f.units != "" {
		// A share of a parallel run writes to its parent through a pipe: if
		// the parent dies, a write must fail, not kill the share before its
		// teardown (which its parent's death starts: childProcAttr).
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	}
	started := time.Now()
	runID := newRunID()
	out, err := filepath.Abs(f.output)
	if err != nil {
		return err
	}
	reportDir := filepath.Join(out, "reports", runID)
	rep := &v1alpha1.ConformanceReport{
		Metadata:    v1alpha1.Metadata{RunID: runID, Date: started.UTC().Truncate(time.Second), Command: strings.Join(os.Args, " "), Harness: harness()},
		Environment: v1alpha1.Environment{Runtime: f.runtime, Host: v1alpha1.Host{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU()}},
	}
	rep.Metadata.LabelFilter = f.labelFilter
	rep.Metadata.SuiteVersion = suiteVersionOf(rep.Metadata.Harness)
	profile := profileCatalogue
	if f.certify != nil {
		profile = profilePlugin
	}
	if path != nil {
		profile = profileUpgrade
		rep.Environment.Notes = append(rep.Environment.Notes, "upgrade run along "+strings.Join(path, " -> ")+": the environment was brought up on "+path[0])
	}
	rep.Profile = profile
	rec, err := reports.OpenRecorder(filepath.Join(reportDir, "results.jsonl"))
	if err != nil {
		return err
	}
	defer rec.Close()
	suiteFailed := false
	finish := func(runErr error) error {
		switch {
		case cutShort(ctx, runErr):
			// What Ctrl-C cut short is no failure: the run is incomplete.
			rep.Environment.Notes = append(rep.Environment.Notes, "stopped by the interruption: "+runErr.Error())
			fmt.Fprintln(os.Stderr, "interrupted:", runErr)
		case runErr != nil:
			rep.Error = runErr.Error()
			fmt.Fprintln(os.Stderr, "error:", runErr)
		}
		rep.Interrupted = rep.Interrupted || ctx.Err() != nil
		rep.Timings.TotalSeconds = time.Since(started).Seconds()
		return writeReport(out, reportDir, rep, suiteFailed)
	}
	if note, err := environment.Guard(ctx, filepath.Join(out, "env", "state.json")); err != nil {
		return finish(err)
	} else if note != "" {
		rep.Environment.Notes = append(rep.Environment.Notes, note)
	}
	plan, pluginPath, err := f.prepare(ctx, f.selfTest, profile)
	if err != nil {
		return finish(err)
	}
	var only func(binding, check string) bool
	if f.units != "" {
		var bindings map[string]bool
		if only, bindings, err = onlyUnits(f.units); err != nil {
			return finish(err)
		}
		plan.keepBindings(bindings)
	}
	cfg, err := f.config(runID, filepath.Join(reportDir, "logs"), plan, pluginPath)
	if err != nil {
		return finish(err)
	}
	if f.parallel > 1 {
		return finish(runParallel(ctx, f, cfg, plan, rep, rec, reportDir))
	}
	// Every version of the path is obtained before anything starts: a
	// missing build fails now, not after the first hop.
	targets, pathBinaries, err := upgradeTargets(ctx, cfg, path)
	if err != nil {
		return finish(err)
	}
	env, err := environment.Up(ctx, cfg)
	describeEnvironment(rep, env, plan)
	for _, b := range pathBinaries {
		rep.Environment.Binaries = append(rep.Environment.Binaries, v1alpha1.Binary{Name: b.Name, Version: b.Version, SHA256: b.SHA256, Source: b.Source, Path: b.Path})
	}
	if err != nil {
		return finish(fmt.Errorf("bring-up: %w", err))
	}
	rep.Metadata.Command = reproduce(f, env.Tools.ArgoCDVersion)
	rep.Timings.BringUpSeconds = env.BringUp.Seconds()
	suiteStart := time.Now()
	var upgrade *conformance.UpgradeRun
	if path != nil {
		upgrade = &conformance.UpgradeRun{Path: path, Timeout: f.upgradeTimeout, Record: func(u v1alpha1.Upgrade) { rep.Upgrade = &u }}
	}
	suiteErr := runSuite(ctx, f, env, plan, rec, &suiteFailed, upgrade, targets, only)
	rep.Timings.SuiteSeconds = time.Since(suiteStart).Seconds()
	t := time.Now()
	bringUpPhases := len(env.Phases)
	// Teardown ignores the run's cancellation (it is what Ctrl-C asks for)
	// but not forever: a hung step must not hang the harness.
	downCtx, cancelDown := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Minute)
	defer cancelDown()
	downErr := env.Down(downCtx)
	for _, p := range env.Phases[bringUpPhases:] {
		rep.Timings.Phases = append(rep.Timings.Phases, v1alpha1.Phase{Name: p.Name, Seconds: p.Seconds})
	}
	rep.Timings.Phases = append(rep.Timings.Phases, v1alpha1.Phase{Name: "teardown", Seconds: time.Since(t).Seconds()})
	return finish(errors.Join(suiteErr, downErr))
}

// runSuite runs the checks; suiteFailed is set when Ginkgo itself did not
// pass (the results may not say why, e.g. a spec that stopped early).
func runSuite(ctx context.Context, f *runFlags, env *environment.Environment, plan *pluginPlan, rec *reports.Recorder, suiteFailed *bool,
	upgrade *conformance.UpgradeRun, targets map[string]argocd.Target, only func(binding, check string) bool) error {
	conn, err := connect(ctx, env)
	if err != nil {
		return err
	}
	defer func() { conn.closer.Close() }()
	kc, err := kube.NewClient(env.Cluster.REST)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(env.Cluster.REST)
	if err != nil {
		return err
	}
	dslEnv := dsl.NewEnv(dsl.Env{Apps: conn.apps, Repos: conn.repos, Kube: kc, Clientset: cs, Git: env.Git,
		ArgoCDNamespace: env.ArgoCD.Namespace, ArgoCDVersion: env.Tools.ArgoCDVersion, KubernetesVersion: env.Cluster.KubernetesVersion,
		CLIPath: env.Tools.Binaries[toolchain.ArgoCD].Path, Services: env.ArgoCD, PluginFiles: env.ArgoCD, Discovery: env.ArgoCD,
		ServerURL: "http://" + env.ArgoCD.ServerAddr, Token: conn.token})
	if upgrade != nil {
		upgrade.Switch = func(ctx context.Context, to string) (argocd.Hop, error) {
			move := env.ArgoCD.Upgrade
			if semver.Compare(to, env.ArgoCD.Version) < 0 {
				move = env.ArgoCD.Downgrade
			}
			hop, err := move(ctx, targets[to])
			if err != nil {
				return hop, err
			}
			dslEnv.ArgoCDVersion, dslEnv.CLIPath = to, targets[to].Binary
			// The API client holds one connection and never redials it (Argo
			// CD's BlockingNewClient): after the server restarted, connect anew.
			conn.closer.Close()
			if conn, err = connect(ctx, env); err != nil {
				return hop, fmt.Errorf("connecting to Argo CD %s: %w", to, err)
			}
			dslEnv.Apps, dslEnv.Repos, dslEnv.Token = conn.apps, conn.repos, conn.token
			return hop, nil
		}
	}
	var recErr error
	err = conformance.Register(conformance.Config{
		Upgrade:     upgrade,
		Only:        only,
		Env:         func() *dsl.Env { return dslEnv },
		Bindings:    plan.Bindings,
		Checks:      plan.Checks,
		LabelFilter: f.labelFilter,
		Record: func(r v1alpha1.Result) {
			recErr = errors.Join(recErr, rec.Record(r))
			fmt.Fprintf(os.Stderr, "check %-10s %-13s %5.1fs  %s\n", r.ID, r.State, r.DurationSeconds, r.Title)
		},
		RecordSelfTest: func(r v1alpha1.SelfTestResult) {
			recErr = errors.Join(recErr, rec.RecordSelfTest(r))
			verdict := "ok"
			if !r.OK {
				verdict = "MISMATCH"
			}
			fmt.Fprintf(os.Stderr, "self-test %-10s vs %-32s expected %-4s observed %-8s %s\n", r.CheckID, r.Witness, r.Expected, r.Observed, verdict)
		},
	})
	if err != nil {
		return err
	}
	if !conformance.Run(conformance.RunOptions{LabelFilter: f.labelFilter, FailFast: f.failFast, Verbose: f.verbose, Timeout: f.timeout}) {
		*suiteFailed = true
	}
	return recErr
}

// apiConn is a logged-in connection to Argo CD's API.
type apiConn struct {
	apps   applicationpkg.ApplicationServiceClient
	repos  repositorypkg.RepositoryServiceClient
	token  string
	closer io.Closer
}

func connect(ctx context.Context, env *environment.Environment) (apiConn, error) {
	token, err := env.ArgoCD.Login(ctx)
	if err != nil {
		return apiConn{}, err
	}
	client, err := apiclient.NewClient(&apiclient.ClientOptions{ServerAddr: env.ArgoCD.ServerAddr, PlainText: true,
		AuthToken: token, ConfigPath: filepath.Join(env.Dir, "argocd-cli-config")})
	if err != nil {
		return apiConn{}, fmt.Errorf("argo CD API client: %w", err)
	}
	closer, apps, err := client.NewApplicationClient()
	if err != nil {
		return apiConn{}, fmt.Errorf("argo CD application client: %w", err)
	}
	reposCloser, repos, err := client.NewRepoClient()
	if err != nil {
		closer.Close()
		return apiConn{}, fmt.Errorf("argo CD repository client: %w", err)
	}
	return apiConn{apps: apps, repos: repos, token: token, closer: closers{closer, reposCloser}}, nil
}

// closers closes each of its members.
type closers []io.Closer

func (cs closers) Close() error {
	var errs []error
	for _, c := range cs {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// describeEnvironment fills what is known of the environment, even after a
// partial bring-up.
func describeEnvironment(rep *v1alpha1.ConformanceReport, env *environment.Environment, plan *pluginPlan) {
	// env is nil when bring-up failed before it began (a binary missing).
	var pluginPath, warnings []string
	if env != nil {
		pluginPath = env.Config.PluginPath
	}
	for _, b := range plan.Bindings {
		if b.Witness {
			continue
		}
		for _, s := range b.Subjects {
			p := s.Plugin
			// Found as its sidecar finds them: the environment puts the
			// plugin path after the plugin's own folders.
			p.PathDirs = append(append([]string{}, p.PathDirs...), pluginPath...)
			rep.Subject.Plugins = append(rep.Subject.Plugins, v1alpha1.Plugin{Name: p.FullName(), Version: p.Version, ConfigSHA256: p.ConfigSHA256, Programs: programs(p),
				Image: p.Image, ImageID: p.ImageID})
			for _, w := range p.Warnings {
				warnings = append(warnings, "plugin "+p.FullName()+": "+w)
			}
		}
	}
	slices.Sort(warnings)
	rep.Environment.Notes = append(rep.Environment.Notes, warnings...)
	// Subjects is a map: sorted, the report reads the same run to run.
	slices.SortFunc(rep.Subject.Plugins, func(a, b v1alpha1.Plugin) int { return strings.Compare(a.Name, b.Name) })
	if env == nil {
		return
	}
	if env.Provider != nil {
		rep.Environment.Provider = env.Provider.Name()
	}
	if env.Cluster != nil {
		rep.Environment.KubernetesVersion = env.Cluster.KubernetesVersion
	}
	for _, p := range env.Phases {
		rep.Timings.Phases = append(rep.Timings.Phases, v1alpha1.Phase{Name: p.Name, Seconds: p.Seconds})
	}
	if env.Tools == nil {
		return
	}
	rep.Environment.ArgoCDVersion = env.Tools.ArgoCDVersion
	rep.Environment.Notes = append(rep.Environment.Notes, env.Tools.Notes...)
	for _, d := range env.Tools.Deviations {
		rep.Environment.Deviations = append(rep.Environment.Deviations, v1alpha1.Deviation{Tool: d.Tool, Pinned: d.Pinned, Used: d.Used, Reason: d.Reason})
	}
	if note := helmSDKNote(env); note != "" {
		rep.Environment.Notes = append(rep.Environment.Notes, note)
	}
	for _, b := range env.Tools.Ordered() {
		rep.Environment.Binaries = append(rep.Environment.Binaries, v1alpha1.Binary{Name: b.Name, Version: b.Version, SHA256: b.SHA256, Source: b.Source, Path: b.Path})
	}
}

// helmSDKNote says which Helm SDK the Helm plugin was built on, and whether
// it is the Helm that this Argo CD version pins (the HELM checks compare the
// plugin with that Helm).
func helmSDKNote(env *environment.Environment) string {
	native, ok := env.Tools.Binaries[toolchain.Helm]
	if !ok {
		return ""
	}
	for _, dir := range env.Config.PluginPath {
		out, err := exec.Command(filepath.Join(dir, "cmp-helm"), "version").Output()
		if err != nil {
			continue
		}
		sdk := strings.TrimPrefix(strings.TrimSpace(string(out)), "helm ")
		if sdk == native.Version {
			return fmt.Sprintf("the Helm plugin is built on Helm SDK %s, the Helm Argo CD %s pins", sdk, env.Tools.ArgoCDVersion)
		}
		return fmt.Sprintf("the Helm plugin is built on Helm SDK %s, but Argo CD %s pins Helm %s: HELM checks compare the two", sdk, env.Tools.ArgoCDVersion, native.Version)
	}
	return ""
}

// reproduce is the command that runs the same thing again, with the version
// that was resolved made explicit.
func writeReport(out, reportDir string, rep *v1alpha1.ConformanceReport, suiteFailed bool) error {
	results, selfTests, err := reports.ReadAll(filepath.Join(reportDir, "results.jsonl"))
	if err != nil {
		return err
	}
	rep.Results, rep.SelfTest = results, selfTests
	reports.Finalize(rep)
	if suiteFailed && rep.Summary.Verdict == v1alpha1.VerdictPassed {
		// Ginkgo failed although no recorded result did: never report that as a pass.
		rep.Error = "the Ginkgo suite did not pass although no recorded check failed (a spec stopped early or failed outside a check); see the run output"
		reports.Finalize(rep)
	}
	if err := reports.Write(reportDir, rep); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	if err := reports.Publish(filepath.Join(out, "reports"), rep.Metadata.RunID); err != nil {
		return err
	}
	c := rep.Summary.Counts[v1alpha1.LevelCore]
	fmt.Fprintf(os.Stderr, "\nverdict: %s (Core: %d passed, %d failed, %d not-supported, %d skipped; bring-up %.1fs, suite %.1fs)\n",
		rep.Summary.Verdict, c.Passed, c.Failed, c.NotSupported, c.Skipped, rep.Timings.BringUpSeconds, rep.Timings.SuiteSeconds)
	for _, why := range reports.Reasons(rep) {
		fmt.Fprintf(os.Stderr, "  why: %s\n", why)
	}
	fmt.Fprintf(os.Stderr, "report: %s\n", filepath.Join(reportDir, reports.SummaryMD))
	if code := reports.ExitCode(rep); code != 0 {
		return exitError{code}
	}
	return nil
}
