// Command cmp-conformance brings up Argo CD with Config Management Plugins,
// runs the conformance catalogue against them, and writes a report.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// exitError carries a process exit code up to main, the only place that exits.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func main() {
	root := &cobra.Command{
		Use:   "cmp-conformance",
		Short: "Conformance suite for Argo CD Config Management Plugins",
		Long: `cmp-conformance brings up a cluster with Argo CD and config management plugins,
runs a catalogue of checks against them, and writes a conformance report.

  cmp-conformance run                      # newest Argo CD this machine can obtain, embedded runtime
  cmp-conformance run --argocd-version v2.14.21
  cmp-conformance run --label-filter 'smoke && Core'
  cmp-conformance run --self-test          # also prove each check fails against plugins/broken
  cmp-conformance env up                   # leave an environment running for plugin development
  cmp-conformance env down
  cmp-conformance tools get                # obtain (download or build) every binary a run needs

The embedded runtime needs no container image: etcd, kube-apiserver,
kube-controller-manager, kube-scheduler and kwok run as processes, as do
Argo CD's components and one argocd-cmp-server per plugin. Binaries are cached
under $XDG_CACHE_HOME/cmp-conformance; a first run builds them from source
(tens of minutes on 2 cores), later runs start in seconds.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(runCommand(), certifyCommand(), envCommand(), toolsCommand(), imagesCommand(), reportCommand())
	if err := root.Execute(); err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(2)
	}
}
