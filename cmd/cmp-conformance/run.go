package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
	"github.com/cmp-conformance/cmp-conformance/internal/text"
	"github.com/cmp-conformance/cmp-conformance/plugins"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
	"github.com/cmp-conformance/cmp-conformance/suites/parallel"
	"github.com/cmp-conformance/cmp-conformance/suites/runner"
)

type runFlags struct {
	envFlags
	labelFilter        string
	selfTest, failFast bool
	verbose            bool
	repeat             int
	timeout            time.Duration
	upgradePath        string
	upgradeTimeout     time.Duration
	// parallel is the number of environments the checks are shared out to;
	// units is the share of one of them (set by the parent, hidden).
	parallel int
	units    string
	// claims is the folder where the shares claim pooled units (hidden).
	claims string
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
  --upgrade-path rollback                    # v3.6.0 -> v3.6.1 -> v3.6.0 (a patch rolled back)
  --upgrade-path v3.4.13,v3.5.7,v3.6.1       # any versions, in order

A plugin that ships as an image is judged as it ships: --plugin-image
ROLE=IMAGE runs it as Argo CD's documented sidecar (the version's
argocd-cmp-server as its entrypoint, uid 999, the repo-server's socket folder
shared). The image must be on this machine; nothing is pulled.

  --plugin-image parameterized=my-plugin:1.4
  --plugin-image service=my-plugin:1.4       # kind and existing: a Deployment and a Service

A parallel run (--parallel N, embedded runtime only, not with --upgrade-path)
shares the catalogue out to N environments side by side, each a child process
with its own cluster, Argo CD, plugins and ports (--port-base + 100 per
environment): the checks of the reference plugins one by one, each witness of
--self-test whole, balanced by the seconds each took in the newest earlier
reports under --output (else by reference timings). Their results are merged
into one report; each environment's own report stays under its shares/N, its
logs under logs/share-N. Ctrl-C stops every environment and still writes the
merged report.

On kind (--runtime kind) Argo CD is installed as users install it, from the
version's release manifests, with each --plugin-image as a sidecar of
argocd-repo-server (the service role's as a Deployment and Service of its
own, reached through a bridge sidecar; the Helm plugin from an image built
for the version's Helm); an upgrade hop applies the next version's
manifests. Argo CD's image is built here from the version's sources as
its Dockerfile lays it out, or given: --argocd-image REF (an image of this
machine, a release candidate's say) runs under the manifests in its place.
The nodes pull only from a registry beside the cluster: an image a
workload needs is pushed there from this machine when it has it, and the
report says which it lacked. A check that needs what kind cannot give (a
plugin that is a program of this host, the plugins' sockets) is reported
not-applicable with why, and leaves a pass partial. certify --image runs there too. --self-test there proves
what can run in a pod: the witnesses that ship as images, and those of the
service role (its image, their plugin.yaml, their broken bridge); the
witnesses that are programs of this host are left out.

On a cluster you give (--runtime existing --kubeconfig PATH --image-registry
HOST:PORT) Argo CD is installed the same way, into a namespace of its own
(cmp-conformance-argocd, its bindings rewritten as the docs say). Argo CD's
images are pulled as its manifests name them; the images the run makes (the
plugins, cmp-bridge, the git relay) are pushed to --image-registry and named
there. The sources stay on this host: a relay pod (cmp-gitserver -relay)
carries the pods' clones back along a port-forward this host opened. A
cluster that already holds an Argo CD is refused in seconds (unless
--allow-existing-argocd), and what the run created is deleted when it ends,
Ctrl-C included. env up --runtime kind --cluster-only (make kind-target)
makes a throw-away cluster to try it on, and prints the flags.

  --runtime existing --kubeconfig ~/.kube/config --image-registry registry.example:5000/cmpc

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
	fl.IntVar(&f.repeat, "repeat", 1, "run each selected check this many times in a row, stopping at its first failing attempt: reproduces a flake (--repeat 10 --label-filter SVC-008); the result's attempts say which one failed")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "verbose Ginkgo output")
	fl.DurationVar(&f.timeout, "timeout", 2*time.Hour, "bound on the whole suite")
	fl.StringVar(&f.upgradePath, "upgrade-path", "", "run the upgrade profile along these Argo CD versions: a path name ("+strings.Join(upgradePathNames(), ", ")+") or versions separated by commas")
	fl.DurationVar(&f.upgradeTimeout, "upgrade-timeout", 3*time.Minute, "bound on each application's return to Synced and Healthy after a hop (UPG-001)")
	f.bindParallel(fl, envInt("PARALLEL", 1))
	return cmd
}

// usage refuses, before anything slow, the run's flags whose values cannot
// be right; the environment's flags too.
func (f *runFlags) usage() error {
	switch {
	case f.timeout <= 0:
		return fmt.Errorf("--timeout %s: give a positive bound on the whole suite, e.g. 2h", f.timeout)
	case f.repeat < 1:
		return fmt.Errorf("--repeat %d: give 1 (each check once) or more", f.repeat)
	case f.repeat > 1 && f.parallel > 1:
		return errors.New("--repeat runs each check several times in one environment: leave --parallel out (or 1)")
	case f.upgradePath != "" && f.upgradeTimeout <= 0:
		return fmt.Errorf("--upgrade-timeout %s: give a positive duration, e.g. 3m", f.upgradeTimeout)
	}
	if err := f.parallelUsage(); err != nil {
		return err
	}
	return f.envFlags.usage()
}

// cutShort says whether err is only the interruption of ctx (Ctrl-C,
// SIGTERM) surfacing through whatever it stopped: such a run is incomplete,
// not failed.
func cutShort(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled)
}

// profileChecks are the checks the run's kind can run: a certification's
// plugin profile, an upgrade path's upgrade checks, or the catalogue.
func (f *runFlags) profileChecks() []conformance.Check {
	switch {
	case f.certify != nil:
		return f.certify.library(&f.envFlags).Checks()
	case f.upgradePath != "":
		return slices.DeleteFunc(conformance.All(), func(c conformance.Check) bool { return c.Area != conformance.Upgrade })
	}
	return slices.DeleteFunc(conformance.Catalogue(), func(c conformance.Check) bool { return c.Area == conformance.Upgrade })
}

func run(f *runFlags) error {
	// A bad filter makes Ginkgo exit the process from inside RunSpecs, after
	// the bring-up and with nothing torn down: check it before anything starts.
	selected, err := types.ParseLabelFilter(f.labelFilter)
	if err != nil {
		return fmt.Errorf("--label-filter %q: %s", f.labelFilter, text.Plain(err.Error()))
	}
	// A filter that leaves nothing would bring an environment up for no check.
	if !slices.ContainsFunc(f.profileChecks(), func(c conformance.Check) bool { return selected(c.Labels()) }) {
		return fmt.Errorf("--label-filter %q selects no check of this run: a check is selected by its ID, area, level or feature (docs/checks.md lists them)", f.labelFilter)
	}
	if err := f.usage(); err != nil {
		return err
	}
	path, err := f.upgrade()
	if err != nil {
		return err
	}
	if err := f.validate(); err != nil {
		return err
	}
	if err := f.inClusterUsage(); err != nil {
		return err
	}
	if err := f.certifyUsage(); err != nil {
		return err
	}
	if err := f.checkVersions(path); err != nil {
		return err
	}
	ctx, stop := interruptible()
	defer stop()
	// A share of a parallel run writes to its parent through a pipe: if
	// the parent dies, its teardown runs (interruptible), as its parent's
	// death also asks (childProcAttr).
	profile := plugins.ProfileCatalogue
	if f.certify != nil {
		profile = f.certify.library(&f.envFlags).Profile()
	}
	if path != nil {
		profile = plugins.ProfileUpgrade
	}
	sess, err := runner.Open(f.output, f.runtime, profile, f.labelFilter, time.Now(), os.Stderr)
	if err != nil {
		return err
	}
	rep := sess.Report
	if path != nil {
		sess.Note("upgrade run along " + strings.Join(path, " -> ") + ": the environment was brought up on " + path[0])
	}
	suiteFailed := false
	finish := func(runErr error) error {
		switch {
		case cutShort(ctx, runErr):
			// What Ctrl-C cut short is no failure: the run is incomplete.
			sess.Note("stopped by the interruption: " + runErr.Error())
			fmt.Fprintln(os.Stderr, "interrupted:", runErr)
			runErr = nil
		case runErr != nil:
			fmt.Fprintln(os.Stderr, "error:", runErr)
		}
		rep.Interrupted = rep.Interrupted || ctx.Err() != nil
		code, err := sess.Finish(runErr, suiteFailed)
		if err != nil {
			return err
		}
		if code != 0 {
			return exitError{code}
		}
		return nil
	}
	if err := sess.Guard(ctx); err != nil {
		return finish(err)
	}
	plan, pluginPath, err := f.prepare(ctx, f.selfTest, profile)
	if err != nil {
		return finish(err)
	}
	plan.MarkHostPlugins(f.runtime)
	var only func(binding, check string) bool
	var claim func(binding, check string) (bool, error)
	var queue map[string][]string
	if f.units != "" {
		sh, err := parallel.ReadShare(f.units)
		if err != nil {
			return finish(err)
		}
		plan.KeepBindings(sh.Bindings())
		queue = sh.Queue()
		only = sh.Only
		if f.claims != "" {
			claim = sh.Claimer(f.claims)
		}
	}
	cfg, err := f.config(rep.Metadata.RunID, sess.LogDir(), plan, pluginPath)
	if err != nil {
		return finish(err)
	}
	if f.parallel > 1 {
		return finish(runParallel(ctx, f, cfg, plan, rep, sess.Recorder(), sess.ReportDir))
	}
	// Every version of the path is obtained before anything starts: a
	// missing build fails now, not after the first hop.
	targets, pathBinaries, err := upgradeTargets(ctx, cfg, path)
	if err != nil {
		return finish(err)
	}
	err = sess.Up(ctx, cfg, plan.Bindings)
	for _, b := range pathBinaries {
		rep.Environment.Binaries = append(rep.Environment.Binaries, v1alpha1.Binary{Name: b.Name, Version: b.Version, SHA256: b.SHA256, Source: b.Source, Path: b.Path})
	}
	if err != nil {
		return finish(err)
	}
	rep.Metadata.Command = reproduce(f, sess.Env.Tools.ArgoCDVersion)
	if f.units != "" {
		// The parent starts its next share now (runShares).
		_ = os.WriteFile(filepath.Join(sess.Out, parallel.UpFile), nil, 0o644)
	}
	var upgrade *conformance.UpgradeRun
	if path != nil {
		upgrade = &conformance.UpgradeRun{Path: path, Timeout: f.upgradeTimeout, Record: func(u v1alpha1.Upgrade) { rep.Upgrade = &u }}
	}
	suiteErr := runSuite(ctx, f, sess, plan, &suiteFailed, upgrade, targets, share{only, claim, queue})
	return finish(errors.Join(suiteErr, sess.Down(ctx)))
}

// share is what a share of a parallel run gives the tree (all nil otherwise).
type share struct {
	only  func(binding, check string) bool
	claim func(binding, check string) (bool, error)
	queue map[string][]string
}

// runSuite runs the checks; suiteFailed is set when Ginkgo itself did not
// pass (the results may not say why, e.g. a spec that stopped early).
func runSuite(ctx context.Context, f *runFlags, sess *runner.Session, plan *plugins.Plan, suiteFailed *bool,
	upgrade *conformance.UpgradeRun, targets map[string]argocd.Target, sh share) error {
	if err := sess.Connect(ctx); err != nil {
		return err
	}
	env := sess.Env
	if upgrade != nil {
		upgrade.Switch = func(ctx context.Context, to string) (argocd.Hop, error) {
			hop, err := env.Switch(ctx, targets[to])
			if err != nil {
				return hop, err
			}
			sess.DSL.ArgoCDVersion, sess.DSL.CLIPath = to, targets[to].Binary
			// The API client holds one connection and never redials it (Argo
			// CD's BlockingNewClient): after the server restarted, connect anew.
			if err := sess.Connect(ctx); err != nil {
				return hop, fmt.Errorf("connecting to Argo CD %s: %w", to, err)
			}
			return hop, nil
		}
	}
	var recErr error
	err := conformance.Register(conformance.Config{
		Upgrade:     upgrade,
		Only:        sh.only,
		Claim:       sh.claim,
		Queue:       sh.queue,
		Env:         func() *dsl.Env { return sess.DSL },
		Bindings:    plan.Bindings,
		Checks:      plan.Checks,
		LabelFilter: f.labelFilter,
		Repeat:      f.repeat,
		Record: func(r v1alpha1.Result) {
			recErr = errors.Join(recErr, sess.Record(r))
		},
		RecordSelfTest: func(r v1alpha1.SelfTestResult) {
			recErr = errors.Join(recErr, sess.Recorder().RecordSelfTest(r))
			verdict := "ok"
			switch {
			case r.Provisional && !r.OK:
				// Judged only at the end, against the reference plugins'
				// result of the check: no mismatch while Argo CD diverges.
				verdict = "provisional: disagrees with its witness; judged against the reference at the end"
			case r.Provisional:
				verdict = "ok (provisional: judged against the reference at the end)"
			case !r.OK:
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

// inClusterUsage refuses, before anything is built, what the runtimes that
// install Argo CD in a cluster cannot do, and says where it is done.
func (f *runFlags) inClusterUsage() error {
	if environment.InCluster(f.runtime) && f.certify != nil && f.certify.image == "" && f.certify.extension == "" {
		return fmt.Errorf("certify --plugin-dir runs the plugin's programs on this host, and --runtime %s runs plugins only from images: build an image of the plugin and certify it with --image, or use --runtime embedded", f.runtime)
	}
	return nil
}
