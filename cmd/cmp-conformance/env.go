package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
	"github.com/cmp-conformance/cmp-conformance/plugins"
	"github.com/cmp-conformance/cmp-conformance/suites/runner"
)

func envCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "env",
		Short: "Bring an environment up and leave it running, or take it down",
		Long: `env up brings up the same environment a run uses and leaves it running, for
developing a plugin against a live Argo CD; env down stops every process it
started and deletes the cluster, from any shell. The state lives in
<output>/env/state.json. env up exits 2 on bad usage, 1 when the bring-up
failed and 3 when it was interrupted; either way nothing it started is left.`,
	}
	var f envFlags
	var clusterOnly bool
	up := &cobra.Command{Use: "up", Short: "Bring the environment up and leave it running", Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return envUp(&f, clusterOnly) }}
	f.bind(up)
	up.Flags().BoolVar(&clusterOnly, "cluster-only", false, "with --runtime kind: install nothing; leave the cluster and its registry (holding the images of the version's manifests and of the fixtures) as a throw-away target for --runtime existing --image-registry")
	var output string
	down := &cobra.Command{Use: "down", Short: "Stop every process of the environment and delete its cluster", Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return envDown(output) }}
	down.Flags().StringVar(&output, "output", "_output", "the --output the environment was brought up with")
	status := &cobra.Command{Use: "status", Short: "Show the running environment", Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return envStatus(output) }}
	status.Flags().StringVar(&output, "output", "_output", "the --output the environment was brought up with")
	var dir, addr, relayKubeconfig, imageRegistry string
	serveGit := &cobra.Command{Use: "serve-git", Hidden: true, Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			ctx, stop := interruptible()
			defer stop()
			return environment.ServeGit(ctx, dir, addr, relayKubeconfig, imageRegistry)
		}}
	serveGit.Flags().StringVar(&dir, "dir", "", "repositories folder")
	serveGit.Flags().StringVar(&addr, "addr", "127.0.0.1:0", "listen address")
	serveGit.Flags().StringVar(&relayKubeconfig, "relay-kubeconfig", "", "also serve the existing runtime's git relay in this cluster")
	serveGit.Flags().StringVar(&imageRegistry, "image-registry", "", "the existing runtime's registry: the fixtures' workload images are named there")
	cmd.AddCommand(up, down, status, serveGit)
	return cmd
}

func envUp(f *envFlags, clusterOnly bool) error {
	if clusterOnly && f.runtime != environment.RuntimeKind {
		return fmt.Errorf("--cluster-only makes a kind cluster to try --runtime existing on; --runtime %s makes none: use --runtime kind", f.runtime)
	}
	if err := f.validate(); err != nil {
		return err
	}
	if err := f.checkVersions(nil); err != nil {
		return err
	}
	ctx, stop := interruptible()
	defer stop()
	out, err := filepath.Abs(f.output)
	if err != nil {
		return err
	}
	if note, err := environment.Guard(ctx, filepath.Join(out, "env", "state.json")); err != nil {
		return err
	} else if note != "" {
		fmt.Fprintln(os.Stderr, "note:", note)
	}
	plan, path, err := f.prepare(ctx, false, plugins.ProfileCatalogue)
	if err != nil {
		return err
	}
	runID := runner.NewRunID(time.Now())
	cfg, err := f.config(runID, filepath.Join(out, "env", "logs"), plan, path)
	if err != nil {
		return err
	}
	if cfg.Self, err = os.Executable(); err != nil {
		return err
	}
	cfg.Detached, cfg.ClusterOnly = true, clusterOnly
	env, err := environment.Up(ctx, cfg)
	if err != nil {
		// Not a usage error: the environment did not come up, or Ctrl-C
		// stopped it (the codes a run gives a failure and an interruption).
		if cutShort(ctx, err) {
			fmt.Fprintln(os.Stderr, "interrupted:", err)
			return exitError{3}
		}
		fmt.Fprintln(os.Stderr, "error:", err)
		return exitError{1}
	}
	if clusterOnly {
		fmt.Printf(`environment %s is up (bring-up %.1fs): kind cluster cmpc-%s, nothing installed
  kubeconfig   %s
  registry     %s (its nodes pull every image from it: Argo CD %s's, the fixtures', and what a run pushes)
try the existing runtime on it with:
  cmp-conformance run --runtime existing --kubeconfig %s --image-registry %s --port-base %d
stop it with: cmp-conformance env down
`, runID, env.BringUp.Seconds(), runID, env.Cluster.Kubeconfig, env.Registry.Addr, env.Tools.ArgoCDVersion,
			env.Cluster.Kubeconfig, env.Registry.Addr, f.portBase+1000)
		return nil
	}
	if env.ArgoCD == nil { // kind, existing: Argo CD runs in the cluster, as released
		ns := env.Installed.Namespace
		fmt.Printf(`environment %s is up (bring-up %.1fs)
  Argo CD %s   installed from its manifests in namespace %s
  kubeconfig   %s
  phases      `, runID, env.BringUp.Seconds(), env.Tools.ArgoCDVersion, ns, env.Cluster.Kubeconfig)
		for _, p := range env.Phases {
			fmt.Printf(" %s %.1fs;", p.Name, p.Seconds)
		}
		fmt.Printf("\n  its API      user admin, password %s (checked through a port-forward during bring-up); reach it with\n"+
			"               kubectl --kubeconfig %s -n %s port-forward svc/argocd-server 8080:443\nstop it with: cmp-conformance env down\n",
			env.Installed.AdminPassword, env.Cluster.Kubeconfig, ns)
		return nil
	}
	fmt.Printf(`environment %s is up (bring-up %.1fs)
  Argo CD %s   http://%s   user admin, password %s
  argocd login %s --plaintext --username admin --password '%s'
  kubeconfig   %s
  git          http://127.0.0.1:%d/<app>.git (fixtures/apps, one repository per folder)
  logs         %s
stop it with: cmp-conformance env down   (make env-down)
`, runID, env.BringUp.Seconds(), env.Tools.ArgoCDVersion, env.ArgoCD.ServerAddr, env.ArgoCD.AdminPassword,
		env.ArgoCD.ServerAddr, env.ArgoCD.AdminPassword, env.Cluster.Kubeconfig, f.portBase+6, cfg.LogDir)
	return nil
}

func envDown(output string) error {
	out, err := filepath.Abs(output)
	if err != nil {
		return err
	}
	stopped, err := environment.DownFromState(context.Background(), filepath.Join(out, "env", "state.json"))
	for _, s := range stopped {
		fmt.Println("stopped", s)
	}
	if err == nil && len(stopped) == 0 {
		fmt.Println("no environment was running")
	}
	return err
}

func envStatus(output string) error {
	out, err := filepath.Abs(output)
	if err != nil {
		return err
	}
	s, err := environment.ReadState(filepath.Join(out, "env", "state.json"))
	if err != nil {
		return err
	}
	if s == nil {
		fmt.Println("no environment is up")
		return nil
	}
	fmt.Printf("run %s (%s): Argo CD %s at http://%s, admin password %s\nkubeconfig %s\n", s.RunID, s.Runtime, s.ArgoCD, s.Server, s.Password, s.Kubeconfig)
	return nil
}
