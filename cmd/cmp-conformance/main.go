// Command cmp-conformance brings up Argo CD with Config Management Plugins,
// runs the conformance catalogue against them, and writes a report.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
)

// exitError carries a process exit code up to main, the only place that exits.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func main() {
	if err := rootCommand().Execute(); err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(2)
	}
}

// rootCommand is the whole command tree (docs/cli.md is generated from it).
func rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "cmp-conformance",
		Short: "Conformance suite for Argo CD Config Management Plugins",
		Long: `cmp-conformance brings up a cluster with Argo CD and config management plugins,
runs a catalogue of checks against them, and writes a conformance report.

  cmp-conformance run                      # newest Argo CD of the matrix this machine can obtain, embedded runtime
  cmp-conformance run --argocd-version v2.14.21
  cmp-conformance run --label-filter 'smoke && Core'
  cmp-conformance run --self-test          # also prove each check fails against plugins/broken
  cmp-conformance env up                   # leave an environment running for plugin development
  cmp-conformance env down
  cmp-conformance tools get                # obtain (download or build) every binary a run needs

The embedded runtime needs no container image: etcd, kube-apiserver,
kube-controller-manager, kube-scheduler and kwok run as processes, as do
Argo CD's components and one argocd-cmp-server per plugin. The version matrix
is Argo CD's three supported lines, each by its newest patch, and the last v2
release, read from the module proxy's version lists when a command starts
(the versions written in the code when no list can be had). Binaries are cached
under $XDG_CACHE_HOME/cmp-conformance; a first run builds them from source
(tens of minutes on 2 cores), later runs start in seconds.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// The version matrix follows the module proxy's lists (a fraction of
		// a second), before flags name a line of it (--argocd-version 3.6).
		PersistentPreRun: func(cmd *cobra.Command, _ []string) { toolchain.ResolveMatrix(cmd.Context()) },
	}
	root.AddCommand(runCommand(), certifyCommand(), renderCommand(), announceCommand(), envCommand(), toolsCommand(), imagesCommand(), reportCommand())
	return root
}
