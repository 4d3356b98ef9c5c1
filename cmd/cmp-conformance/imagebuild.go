package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/cmp-conformance/cmp-conformance/fixtures/nodeimage"
	"github.com/cmp-conformance/cmp-conformance/fixtures/pluginimage"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
	"github.com/cmp-conformance/cmp-conformance/plugins"
)

// referenceImageTag is the tag `images build` gives plugins/<folder>.
func referenceImageTag(folder string) string { return "cmp-conformance/" + folder + ":dev" }

func imagesCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "images",
		Short: "Build the reference plugins as images, as they would ship",
		Long: `The reference plugins with a Dockerfile (plugins/<folder>/Dockerfile) ship as
images: their static programs FROM scratch, plugin.yaml at
` + pluginimage.ConfigPath + `. 'images build' builds them
offline (nothing is pulled) as cmp-conformance/<folder>:dev, so that a run can
certify them as any plugin image is certified:

  cmp-conformance images build
  cmp-conformance run --plugin-image parameterized=cmp-conformance/sidecar:dev`,
	}
	var output string
	var examples, kindNode, upstreamCorpus bool
	var argocdVersion string
	build := &cobra.Command{Use: "build [FOLDER...]", Short: "Build the images of the reference plugins (all with a Dockerfile, or the folders named), or of the examples",
		RunE: func(_ *cobra.Command, args []string) error {
			root, err := repoRoot()
			if err != nil {
				return err
			}
			if examples {
				return buildExamples(root, output, args)
			}
			if upstreamCorpus {
				v, err := toolchain.SpellVersion(argocdVersion)
				if err != nil {
					return fmt.Errorf("--argocd-version %w", err)
				}
				ctx, stop := interruptible()
				defer stop()
				if err := buildUpstream(ctx, root, output, v, toolchain.Options{Progress: os.Stderr}); err != nil {
					return failed(err)
				}
				return nil
			}
			if kindNode {
				return buildKindNode(output)
			}
			folders, err := imageFolders(root, args)
			if err != nil {
				return err
			}
			ctx, stop := interruptible()
			defer stop()
			if err := pluginimage.Ping(ctx); err != nil {
				return err
			}
			bin, err := filepath.Abs(filepath.Join(output, "bin"))
			if err != nil {
				return err
			}
			if err := plugins.BuildPrograms(ctx, root, bin); err != nil {
				return failed(err)
			}
			for _, folder := range folders {
				if missing := plugins.MissingPrograms(filepath.Join(root, "plugins", folder), bin); len(args) == 0 && len(missing) > 0 {
					fmt.Fprintf(os.Stderr, "plugins/%s: skipped, %v not among the programs built here (see its Dockerfile for how to build it)\n", folder, missing)
					continue
				}
				start := time.Now()
				img, err := plugins.BuildImage(ctx, filepath.Join(root, "plugins", folder), bin, referenceImageTag(folder), nil, io.Discard)
				if err != nil {
					return failed(err)
				}
				fmt.Printf("%s\t%s\t%.1fs\n", img.Ref, img.ID, time.Since(start).Seconds())
			}
			return nil
		}}
	build.Flags().StringVar(&output, "output", "_output", "folder for the plugin programs (<output>/bin)")
	build.Flags().BoolVar(&examples, "examples", false, "build the example plugins of examples/ instead (cmp-conformance/example-<folder>:dev; a Debian base made with debootstrap where image.yaml asks for one)")
	build.Flags().BoolVar(&kindNode, "kind-node", false, "build the kind node image instead ("+nodeimage.Repository+":<kubernetes version>-<digest>): a Debian base made with debootstrap, Kubernetes built from the module proxy, the images kubeadm runs inside; tens of minutes on a cold machine, then cached")
	build.Flags().BoolVar(&upstreamCorpus, "upstream", false, "build the corpus of Argo CD's own e2e plugins instead (plugins/upstream/corpus.yaml: test/e2e/testdata/cmp-* of the argo-cd module at --argocd-version, on a Debian base), their samples and certifications under <output>/upstream, and <output>/upstream/plan.tsv for make upstream")
	build.Flags().StringVar(&argocdVersion, "argocd-version", os.Getenv("ARGOCD_VERSION"), "with --upstream: the Argo CD whose e2e plugins are built ("+toolchain.VersionSpellings+")")
	build.MarkFlagsMutuallyExclusive("examples", "kind-node", "upstream")
	cmd.AddCommand(build)
	return cmd
}

// imageFolders are the plugin folders to build: those named (each must have
// a Dockerfile), or every one that has one.
func imageFolders(root string, named []string) ([]string, error) {
	if len(named) > 0 {
		for _, f := range named {
			if _, err := os.Stat(filepath.Join(root, "plugins", f, "Dockerfile")); err != nil {
				return nil, fmt.Errorf("plugins/%s has no Dockerfile (folders with one: run 'cmp-conformance images build' without arguments to build them all)", f)
			}
		}
		return named, nil
	}
	files, _ := filepath.Glob(filepath.Join(root, "plugins", "*", "Dockerfile"))
	var out []string
	for _, f := range files {
		out = append(out, filepath.Base(filepath.Dir(f)))
	}
	sort.Strings(out)
	return out, nil
}

// failed reports a failure that is not bad usage: exit 1, not 2.
func failed(err error) error {
	fmt.Fprintln(os.Stderr, "error:", err)
	return exitError{code: 1}
}
