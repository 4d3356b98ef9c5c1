package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
)

func toolsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "Obtain, list and import the binaries a run needs",
		Long: `Every binary is obtained by version: from the cache
($XDG_CACHE_HOME/cmp-conformance/bin/<tool>/<version>), else the official
release download when reachable, else a build from source through the Go
module proxy. A first build of everything takes tens of minutes on 2 cores.
On an air-gapped machine, import binaries into the cache with 'tools import'.`,
	}
	var f envFlags
	get := &cobra.Command{Use: "get", Short: "Obtain every binary a run needs (as `run` would), and list them", Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := f.usage(); err != nil {
				return err
			}
			if err := f.checkVersions(nil); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			set, err := environment.Tools(ctx, environment.Config{Runtime: f.runtime, ArgoCDVersion: f.argocdVersion,
				ArgoCDBinary: f.argocdBinary, ArgoCDSource: f.argocdSource, Toolchain: f.toolchainOptions()})
			if err != nil {
				return err
			}
			for _, n := range set.Notes {
				fmt.Fprintln(os.Stderr, "note:", n)
			}
			w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "TOOL\tVERSION\tORIGIN\tOBTAINED IN\tSHA256")
			for _, b := range set.Ordered() {
				fmt.Fprintf(w, "%s\t%s\t%s\t%.0fs\t%s\n", b.Name, b.Version, b.Origin, b.ObtainSeconds, b.SHA256)
			}
			return w.Flush()
		}}
	f.bind(get)
	imp := &cobra.Command{Use: "import TOOL VERSION FILE", Short: "Put a binary you supply into the cache (air-gapped machines)", Args: cobra.ExactArgs(3),
		RunE: func(_ *cobra.Command, args []string) error {
			tc, err := toolchain.New(toolchain.Options{Progress: os.Stderr})
			if err != nil {
				return err
			}
			_, err = tc.Import(args[0], args[1], args[2])
			return err
		}}
	var others, all, gate bool
	matrix := &cobra.Command{Use: "matrix", Short: "Print Argo CD's version matrix and where it comes from", Args: cobra.NoArgs,
		Long: `The matrix is Argo CD's three supported release lines, each by its newest
patch, and the last v2 release (legacy), read from the module proxy's version
lists when a command starts; the versions written in the code stand in when no
list can be had, and the last line says which. --others prints only the
versions beside the newest, one line, as make matrix runs them; --all every
version of the table, one line, as make certify-extension-matrix runs them; --gate the
versions a release gate runs side by side, the previous patch and the
newest, as a JSON list (a CI matrix reads it: .github/workflows/matrix.yml).`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m := toolchain.ResolveMatrix(cmd.Context())
			rows := [][2]string{{"current", m.Current}, {"previous patch", m.PreviousPatch}, {"previous", m.Previous}, {"oldest", m.Oldest}, {"legacy", m.Legacy}}
			if all {
				var vs []string
				for _, row := range rows {
					if row[1] != "" && !slices.Contains(vs, row[1]) {
						vs = append(vs, row[1])
					}
				}
				fmt.Println(strings.Join(vs, " "))
				return nil
			}
			if others {
				fmt.Println(strings.Join(m.Versions()[1:], " "))
				return nil
			}
			if gate {
				out, err := json.Marshal([]string{m.PreviousPatch, m.Current})
				if err != nil {
					return err
				}
				fmt.Println(string(out))
				return nil
			}
			w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
			for _, row := range rows {
				fmt.Fprintf(w, "%s\t%s\n", row[0], row[1])
			}
			if err := w.Flush(); err != nil {
				return err
			}
			fmt.Println("from " + m.Source)
			return nil
		}}
	matrix.Flags().BoolVar(&others, "others", false, "print the versions beside the newest, space-separated")
	matrix.Flags().BoolVar(&all, "all", false, "print every version of the table (newest first), space-separated")
	matrix.Flags().BoolVar(&gate, "gate", false, "print the previous patch and the newest as a JSON list, for a CI matrix")
	checkout := &cobra.Command{Use: "checkout VERSION DIR", Short: "Write the tree of an Argo CD release as a git checkout holds it, from the module proxy, for --argocd-source", Args: cobra.ExactArgs(2),
		Long: `checkout writes into DIR (a new folder) the source tree of an Argo CD release as
a git checkout of its tag holds it: the argo-cd module from the module proxy,
and each module its go.mod replaces with a folder of the repository
(gitops-engine from v3.3), fetched at the version it requires and put in that
folder (a module zip leaves nested modules out, so the module alone does not
build). Edit it, then judge what you changed:

  cmp-conformance tools checkout v3.6.1 ./argo-cd
  cmp-conformance run --argocd-source ./argo-cd --label-filter env`,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := toolchain.SpellVersion(args[0])
			if err != nil || v == "" {
				return fmt.Errorf("checkout %q: give a release tag, e.g. v3.6.1", args[0])
			}
			tc, err := toolchain.New(toolchain.Options{Progress: os.Stderr})
			if err != nil {
				return err
			}
			if err := tc.Checkout(cmd.Context(), v, args[1]); err != nil {
				return err
			}
			fmt.Printf("%s holds Argo CD %s as a checkout of its tag: build and judge it with --argocd-source %s\n", args[1], v, args[1])
			return nil
		}}
	cmd.AddCommand(get, imp, matrix, checkout)
	return cmd
}
