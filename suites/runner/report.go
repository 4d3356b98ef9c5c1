package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
	"github.com/cmp-conformance/cmp-conformance/reports"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

// NewRunID names a run: its start time, and two random bytes so that runs
// started in the same second differ.
func NewRunID(started time.Time) string {
	b := make([]byte, 2)
	_, _ = rand.Read(b)
	return started.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b)
}

// NewReport starts the report of a run: who ran what, where, and when.
func NewReport(runID, runtimeName, profile string, started time.Time) *v1alpha1.ConformanceReport {
	h := Harness()
	return &v1alpha1.ConformanceReport{
		Metadata: v1alpha1.Metadata{RunID: runID, Date: started.UTC().Truncate(time.Second), Command: strings.Join(os.Args, " "),
			Harness: h, SuiteVersion: SuiteVersion(h)},
		Environment: v1alpha1.Environment{Runtime: runtimeName, Host: v1alpha1.Host{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU()}},
		Profile:     profile,
	}
}

// DescribeEnvironment fills what is known of the environment and of the
// plugins the bindings judge (witnesses aside), even after a partial
// bring-up: env is nil when it failed before it began (a binary missing).
func DescribeEnvironment(rep *v1alpha1.ConformanceReport, env *environment.Environment, bindings []conformance.Binding) {
	var pluginPath, warnings []string
	if env != nil {
		pluginPath = env.Config.PluginPath
	}
	for _, b := range bindings {
		if b.Witness {
			continue
		}
		for _, s := range b.Subjects {
			if e := s.Extension; e != nil {
				sum, err := e.Digest()
				if err != nil {
					warnings = append(warnings, fmt.Sprintf("extension %s: %v", e.Dir, err))
				}
				kinds := []string{}
				for _, k := range e.Kinds {
					if k.UseOpenLibs { // a protection of Argo CD's turned off: said
						kinds = append(kinds, k.Dir+" (useOpenLibs)")
						continue
					}
					kinds = append(kinds, k.Dir)
				}
				// Its UI files are judged by EXT-006..009 (or said not run).
				kinds = append(kinds, e.UI...)
				name := filepath.Base(e.Dir)
				if abs, err := filepath.Abs(e.Dir); err == nil {
					name = filepath.Base(abs) // "." names the folder it is
				}
				rep.Subject.Extensions = append(rep.Subject.Extensions, v1alpha1.Extension{Name: name, Dir: e.Dir, Kinds: kinds, SHA256: sum})
				continue
			}
			p := s.Plugin
			if s.Unavailable != "" {
				warnings = append(warnings, fmt.Sprintf("plugin %s (role %s) does not run here: %s", p.FullName(), s.Role, s.Unavailable))
			}
			// Found as its sidecar finds them: the environment puts the
			// plugin path after the plugin's own folders.
			p.PathDirs = append(append([]string{}, p.PathDirs...), pluginPath...)
			rep.Subject.Plugins = append(rep.Subject.Plugins, v1alpha1.Plugin{Name: p.FullName(), Version: p.Version, ConfigSHA256: p.ConfigSHA256, Programs: programs(p),
				Image: p.Image, ImageID: p.ImageID, Entrypoint: entrypoint(p)})
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
	rep.Environment.Notes = append(rep.Environment.Notes, env.Notes...)
	rep.Environment.ArgoCDVersion = env.Tools.ArgoCDVersion
	rep.Environment.ArgoCDImage = env.InstalledImage
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

// TearDown takes env down and adds the teardown's phases to the report. It
// ignores ctx's cancellation (Ctrl-C is what asks for it) but not forever:
// a hung step must not hang the harness.
func TearDown(ctx context.Context, env *environment.Environment, rep *v1alpha1.ConformanceReport) error {
	t := time.Now()
	bringUpPhases := len(env.Phases)
	downCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Minute)
	defer cancel()
	err := env.Down(downCtx)
	rep.Environment.Notes = append(rep.Environment.Notes, env.LateNotes()...)
	for _, p := range env.Phases[bringUpPhases:] {
		rep.Timings.Phases = append(rep.Timings.Phases, v1alpha1.Phase{Name: p.Name, Seconds: p.Seconds})
	}
	rep.Timings.Phases = append(rep.Timings.Phases, v1alpha1.Phase{Name: "teardown", Seconds: time.Since(t).Seconds()})
	return err
}

// PrintResult is a check's line in the run's output.
func PrintResult(w io.Writer, r v1alpha1.Result) {
	attempts := ""
	if r.Attempts > 1 {
		attempts = fmt.Sprintf(" (%d attempts)", r.Attempts)
	}
	fmt.Fprintf(w, "check %-10s %-13s %5.1fs  %s%s\n", r.ID, r.State, r.DurationSeconds, r.Title, attempts)
}

// WriteReport reads the results recorded under reportDir into rep, decides
// the verdict, writes the report and points <out>/reports/latest at it,
// tells w the verdict and why, and returns the run's exit status.
// suiteFailed says that Ginkgo itself did not pass (the results may not say
// why: a spec that stopped early); ranSuite that this process ran the
// suite, so its time is split among the results (reports.SuiteProfile).
func WriteReport(out, reportDir string, rep *v1alpha1.ConformanceReport, suiteFailed, ranSuite bool, w io.Writer) (int, error) {
	results, selfTests, err := reports.ReadAll(filepath.Join(reportDir, "results.jsonl"))
	if err != nil {
		return 1, err
	}
	rep.Results, rep.SelfTest = results, selfTests
	if ranSuite {
		rep.Timings.Phases = append(rep.Timings.Phases, reports.SuiteProfile(rep.Timings.SuiteSeconds, results, selfTests)...)
	}
	reports.Finalize(rep)
	if suiteFailed && rep.Summary.Verdict == v1alpha1.VerdictPassed {
		// Ginkgo failed although no recorded result did: never report that as a pass.
		rep.Error = "the Ginkgo suite did not pass although no recorded check failed (a spec stopped early or failed outside a check); see the run output"
		reports.Finalize(rep)
	}
	if err := reports.Write(reportDir, rep); err != nil {
		return 1, fmt.Errorf("writing the report: %w", err)
	}
	if err := reports.Publish(filepath.Join(out, "reports"), rep.Metadata.RunID); err != nil {
		return 1, err
	}
	c := rep.Summary.Counts[v1alpha1.LevelCore]
	fmt.Fprintf(w, "\nverdict: %s (Core: %d passed, %d failed, %d not-supported, %d skipped; bring-up %.1fs, suite %.1fs)\n",
		rep.Summary.Verdict, c.Passed, c.Failed, c.NotSupported, c.Skipped, rep.Timings.BringUpSeconds, rep.Timings.SuiteSeconds)
	if cert := rep.Certification; cert != nil {
		fmt.Fprintf(w, "certification: %s is %s\n", cert.Subject, cert.Level)
	}
	for _, why := range reports.Reasons(rep) {
		fmt.Fprintf(w, "  why: %s\n", why)
	}
	fmt.Fprintf(w, "report: %s\n", filepath.Join(reportDir, reports.SummaryMD))
	return reports.ExitCode(rep), nil
}

// entrypoint is what an image plugin's sidecar ran, for the report.
func entrypoint(p argocd.Plugin) string {
	switch {
	case p.Image == "":
		return ""
	case p.OwnEntrypoint:
		return "image"
	}
	return "argocd"
}
