package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// TestUsageErrorsExitTwoAtOnce runs the commands as main does, with flags
// whose values cannot be right: each must be refused as bad usage (an error
// main turns into exit 2, not a run's exit status), in well under a second,
// before anything is built, started or written.
func TestUsageErrorsExitTwoAtOnce(t *testing.T) {
	plain := filepath.Join(checkoutRoot(t), "plugins", "plain")
	for _, tt := range []struct {
		cmd  func() *cobra.Command
		args []string
		want string
	}{
		{runCommand, []string{"--timeout", "-1s"}, "--timeout -1s: give a positive"},
		{runCommand, []string{"--timeout", "0s"}, "--timeout 0s"},
		{runCommand, []string{"--ready-timeout", "0s"}, "--ready-timeout 0s"},
		{runCommand, []string{"--upgrade-path", "legacy", "--upgrade-timeout", "-3m"}, "--upgrade-timeout"},
		{runCommand, []string{"--port-base", "99999"}, "--port-base 99999"},
		{runCommand, []string{"--port-base", "0"}, "--port-base 0"},
		{runCommand, []string{"--port-base", "65500"}, "give a base from 1 to 65486"},
		{runCommand, []string{"--parallel", "0"}, "--parallel 0"},
		{runCommand, []string{"--repeat", "0"}, "--repeat 0"},
		{runCommand, []string{"--repeat", "3", "--parallel", "3"}, "leave --parallel out"},
		{runCommand, []string{"--plugin", "plain=/nonexistent"}, "want a folder with the plugin's plugin.yaml"},
		{runCommand, []string{"--plugin", "kustomize=" + plain}, `unknown role "kustomize"`},
		{runCommand, []string{"--plugin", "extension=" + plain}, "neither health.lua, health_test.yaml nor actions/discovery.lua"},
		{runCommand, []string{"--plugin", "plain"}, "want ROLE=DIR"},
		{runCommand, []string{"--plugin-image", "nope=x:1"}, `unknown role "nope"`},
		{runCommand, []string{"--plugin-path", "/nonexistent"}, "--plugin-path /nonexistent"},
		{runCommand, []string{"--argocd-version", "stable"}, "not an Argo CD version"},
		{runCommand, []string{"--argocd-version", "v1.8"}, "not in the matrix"},
		{runCommand, []string{"--runtime", "minikube"}, `--runtime "minikube"`},
		{runCommand, []string{"--label-filter", "smoke &&"}, "--label-filter"},
		{runCommand, []string{"--label-filter", "NOPE-001"}, "selects no check of this run"},
		{runCommand, []string{"--upgrade-path", "legacy", "--label-filter", "SMOKE-001"}, "selects no check of this run"},
		{certifyCommand, []string{"--image", "x:1", "--label-filter", "SMOKE-001"}, "selects no check of this run"},
		{certifyCommand, []string{"--image", "x:1", "--parallel", "3"}, "shares out a self-test's witnesses"},
		{runCommand, []string{"--upgrade-path", "sideways"}, "neither a path name"},
		{runCommand, []string{"--argocd-source", "/nonexistent"}, "not a checkout of argo-cd"},
		{runCommand, []string{"--argocd-source", plain, "--argocd-version", "v3.6.1"}, "leave out --argocd-version"},
		{runCommand, []string{"--argocd-source", plain, "--runtime", "existing"}, "use --runtime kind or embedded"},
		{runCommand, []string{"--argocd-image", "x:1"}, "only --runtime kind installs Argo CD from an image"},
		{runCommand, []string{"--argocd-image", "x:1", "--runtime", "kind", "--argocd-source", plain}, "give one"},
		{runCommand, []string{"--argocd-image", "x:1", "--runtime", "kind", "--upgrade-path", "legacy"}, "cannot be combined with --upgrade-path"},
		{runCommand, []string{"--argocd-source", checkoutRoot(t), "--upgrade-path", "legacy"}, "--upgrade-path"},
		{certifyCommand, []string{"--image", "x:1", "--timeout", "-1s"}, "--timeout -1s"},
		{certifyCommand, []string{"--image", "x:1", "--port-base", "99999"}, "--port-base 99999"},
	} {
		name := strings.Join(tt.args, " ")
		cmd := tt.cmd()
		cmd.SetArgs(append(tt.args, "--output", t.TempDir()))
		cmd.SetOut(new(strings.Builder))
		cmd.SetErr(new(strings.Builder))
		start := time.Now()
		err := cmd.Execute()
		took := time.Since(start)
		var ee exitError
		switch {
		case err == nil:
			t.Errorf("%s: accepted", name)
		case errors.As(err, &ee):
			t.Errorf("%s: exit status %d from a run, want bad usage (exit 2): %v", name, ee.code, err)
		case !strings.Contains(err.Error(), tt.want):
			t.Errorf("%s: %v, want it to say %q", name, err, tt.want)
		}
		if took > time.Second {
			t.Errorf("%s: refused after %s, want under a second", name, took)
		}
	}
}

// TestArgoCDImageAbsent: on kind, an image of Argo CD that is not on this
// machine is bad usage, said before anything starts (nothing is pulled).
func TestArgoCDImageAbsent(t *testing.T) {
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("no docker")
	}
	cmd := runCommand()
	cmd.SetArgs([]string{"--runtime", "kind", "--argocd-image", "cmpc-absent/argocd:never", "--output", t.TempDir()})
	cmd.SetOut(new(strings.Builder))
	cmd.SetErr(new(strings.Builder))
	var ee exitError
	if err := cmd.Execute(); err == nil || errors.As(err, &ee) || !strings.Contains(err.Error(), "not present on this machine") {
		t.Errorf("--argocd-image of an absent image: %v, want bad usage saying it is not here", err)
	}
}

// TestVersionSpellings: the obvious spellings of a version reach the run as
// the toolchain's tag.
func TestVersionSpellings(t *testing.T) {
	for in, want := range map[string]string{"3.6.1": "v3.6.1", "latest": "", "v3.5.7": "v3.5.7"} {
		f := envFlags{argocdVersion: in, readyTimeout: time.Minute, portBase: 18080}
		if err := f.usage(); err != nil || f.argocdVersion != want {
			t.Errorf("--argocd-version %s: %q, %v; want %q", in, f.argocdVersion, err, want)
		}
	}
}

// TestRenderUsage: render refuses what cannot be rendered at once, exit 2.
func TestRenderUsage(t *testing.T) {
	root := checkoutRoot(t)
	plain, sample := filepath.Join(root, "plugins", "plain"), filepath.Join(root, "plugins", "plain", "samples", "basic")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{sample}, "give the plugin with --plugin-dir DIR"},
		{[]string{sample, "--plugin-dir", plain, "--image", "x:1"}, "one of them"},
		{[]string{"/nonexistent", "--plugin-dir", plain}, "/nonexistent is not a folder"},
		{[]string{sample, "--plugin-dir", plain, "-o", "toml"}, `--output "toml"`},
		{[]string{sample, "--plugin-dir", plain, "--param", "x"}, "want NAME=VALUE"},
		{[]string{sample, "--plugin-dir", plain, "--param-json", "{"}, "--param-json"},
		{[]string{sample, "--plugin-dir", plain, "--tracking-method", "uid"}, "--tracking-method"},
		{[]string{sample, "--plugin-dir", plain, "--watch", "--timings", "t.jsonl"}, "--timings"},
		{[]string{sample, "--plugin-dir", plain, "--argocd-version", "stable"}, "not an Argo CD version"},
		{[]string{sample, "--plugin-dir", "/nonexistent"}, "plugin.yaml"},
		{[]string{sample, "--config", "p.yaml", "--plugin-dir", plain}, "--config goes with --image"},
		{[]string{sample, "--plugin-dir", plain, "--watch", "--keep"}, "--keep"},
		{[]string{sample, "--plugin-dir", plain, "--repo", "https://example.com/r.git"}, "without a FOLDER"},
		{[]string{"--plugin-dir", plain, "--repo", "example.com/r"}, "give a git URL"},
		{[]string{"--plugin-dir", plain, "--repo", "https://example.com/r.git", "--watch"}, "--watch watches a folder"},
		{[]string{sample, "--plugin-dir", plain, "--revision", "main"}, "--revision goes with --repo"},
		{[]string{"announce", sample, "--plugin-dir", plain, "-o", "toml"}, `--output "toml"`},
		{[]string{"announce", "/nonexistent", "--plugin-dir", plain}, "/nonexistent is not a folder"},
		{[]string{"announce", sample}, "--plugin-dir DIR"},
	} {
		name := strings.Join(tt.args, " ")
		cmd := renderCommand()
		if tt.args[0] == "announce" {
			cmd, tt.args = announceCommand(), tt.args[1:]
		}
		cmd.SetArgs(tt.args)
		cmd.SetOut(new(strings.Builder))
		cmd.SetErr(new(strings.Builder))
		start := time.Now()
		err := cmd.Execute()
		var ee exitError
		switch {
		case err == nil:
			t.Errorf("%s: accepted", name)
		case errors.As(err, &ee):
			t.Errorf("%s: exit status %d, want bad usage: %v", name, ee.code, err)
		case !strings.Contains(err.Error(), tt.want):
			t.Errorf("%s: %v, want it to say %q", name, err, tt.want)
		}
		if took := time.Since(start); took > time.Second {
			t.Errorf("%s: refused after %s", name, took)
		}
	}
}
