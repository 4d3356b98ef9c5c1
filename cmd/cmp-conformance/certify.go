package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/cmp-conformance/cmp-conformance/fixtures/pluginimage"
	"github.com/cmp-conformance/cmp-conformance/suites/certify"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

// certifySubject is the plugin a certify run judges, and its samples.
type certifySubject struct {
	image, config, dir, samples, entrypoint string
	// extension is an extension folder certified instead of a plugin.
	extension string
	// binding is the subject bound to its samples once read (certifyUsage):
	// a bad image is bad usage, answered before anything starts.
	binding *conformance.Binding
}

// library is the subject as the certify library takes it.
func (s *certifySubject) library(f *envFlags) certify.Config {
	return certify.Config{Image: s.image, PluginYAML: s.config, PluginDir: s.dir, PluginPath: f.pluginPath, Samples: s.samples, Output: f.output, Entrypoint: s.entrypoint,
		Extension: s.extension}
}

func certifyCommand() *cobra.Command {
	var f runFlags
	var s certifySubject
	var initFile bool
	cmd := &cobra.Command{
		Use:   "certify (--image REF | --plugin-dir DIR) [--samples certify.yaml] | certify --extension DIR",
		Short: "Certify one plugin as it ships, on its own sample applications (the plugin profile), or one Argo CD extension on its own tests (the extension profile)",
		Long: `certify judges one plugin, the subject, by what its plugin.yaml declares and
what it does with your sample applications: the plugin profile (area plugin,
checks PLUG-*). Nothing of this project's reference plugins is involved: the
environment runs Argo CD with the subject as its only plugin.

The subject is an image as it ships (--image: present on this machine,
nothing is pulled; its plugin.yaml is read from ` + pluginimage.ConfigPath + `
and it runs as Argo CD's documented sidecar: the version's argocd-cmp-server
as entrypoint, uid 999, the repo-server's socket folder shared), or a folder
with plugin.yaml whose programs are found on --plugin-path.

Your samples are described in certify.yaml, in your repository; write a
commented starter with:

  cmp-conformance certify --init             # writes ./certify.yaml
  cmp-conformance certify --image my-plugin:1.4
  cmp-conformance certify --plugin-dir ./plugin --plugin-path ./bin --samples ./certify.yaml

A check needing a feature the plugin does not declare (discover, parameters,
provideGitCreds; in certify.yaml: expect, failing, timeBudget) is
not-supported, and the feature listed as not declared. The level, as Gateway API grades:
  Conformant             0  no check failed
  Partially Conformant   1  the checks every plugin must pass passed, a check
                            of a declared feature failed (features that passed
                            listed)
  Not Conformant         1  a check every plugin must pass failed
  Not Certified          3  interrupted, or checks filtered out
  (bad usage             2, before anything starts: no image, no plugin.yaml,
                            a certify.yaml that does not load)
The report (<output>/reports/latest/summary.md) has a badge line
to paste in your README.

An Argo CD extension is certified the same way, by the extension profile
(area extensions, checks EXT-*), on the embedded runtime or kind (not on
a cluster you give: its CRDs are not the run's to add):

  cmp-conformance certify --extension ./my-extension

The folder has the layout of Argo CD's resource_customizations:
<group>/<Kind>/health.lua with health_test.yaml, <group>/<Kind>/actions/
(discovery.lua, <action>/action.lua, action_test.yaml), the CRDs of its
kinds in crds/. It is installed as an operator installs it (argocd-cm's
resource.customizations keys) before Argo CD starts, and each test case is
judged on a live object: health as the application's resource tree shows
it, actions as Argo CD's API runs them, refused to a user without the
action's RBAC permission. An extension without tests of a kind is not
judged by that kind's checks (not applicable, said in the report).`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if initFile {
				return writeStarter(s.samples)
			}
			// Bad usage is answered by certifyUsage (certify.Load), before
			// anything starts.
			f.certify = &s
			return run(&f)
		},
	}
	f.bind(cmd)
	fl := cmd.Flags()
	f.fs = fl
	fl.StringVar(&s.image, "image", "", "the plugin image to certify (on this machine: docker build or docker load it first)")
	fl.StringVar(&s.config, "config", "", "with --image: a plugin.yaml to mount over the image's own (as a ConfigMap would be), for an image that does not ship one")
	fl.StringVar(&s.entrypoint, "entrypoint", "", "with --image: what its sidecar runs, over certify.yaml's entrypoint: argocd (Argo CD's documented command, argocd-cmp-server; the default) or image (the image's own ENTRYPOINT, for an image whose script starts argocd-cmp-server itself and whose install sets no command)")
	fl.StringVar(&s.dir, "plugin-dir", "", "the plugin folder to certify (plugin.yaml; its programs on --plugin-path)")
	fl.StringVar(&s.extension, "extension", "", "an Argo CD extension folder to certify instead of a plugin (<group>/<Kind>/health.lua, actions/, their tests, crds/, ui/extension*.js): the extension profile, embedded runtime (UI files loaded in headless Chromium)")
	fl.StringVar(&s.samples, "samples", "certify.yaml", "the certification file: your sample applications (write one with --init)")
	fl.BoolVar(&initFile, "init", false, "write a commented starter certification file at --samples and stop")
	fl.StringVar(&f.labelFilter, "label-filter", os.Getenv("LABEL_FILTER"), "Ginkgo label filter selecting checks (IDs, levels, features)")
	fl.BoolVar(&f.selfTest, "self-test", false, "also run the profile against the witnesses of plugins/broken (profile plugin), which must fail the checks they violate")
	fl.BoolVar(&f.failFast, "fail-fast", false, "stop at the first failed check")
	fl.IntVar(&f.repeat, "repeat", 1, "run each selected check this many times in a row, stopping at its first failing attempt (to reproduce a flake)")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "verbose Ginkgo output")
	fl.DurationVar(&f.timeout, "timeout", time.Hour, "bound on the whole suite")
	f.bindParallel(fl, 1)
	// The roles of the catalogue do not apply here.
	for _, name := range []string{"plugin", "plugin-image"} {
		_ = fl.MarkHidden(name)
	}
	return cmd
}

// writeStarter writes the commented starter certification, never over a file.
func writeStarter(file string) error {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s exists: edit it, or give --samples another path", file)
	}
	if err != nil {
		return err
	}
	if _, err := f.WriteString(conformance.CertificationStarter); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s: put your sample applications where it says, then run cmp-conformance certify\n", file)
	return nil
}

// certifyUsage refuses what a certify run cannot do.
func (f *runFlags) certifyUsage() error {
	if f.certify == nil {
		return nil
	}
	switch {
	case len(f.plugins) > 0 || len(f.images) > 0:
		return errors.New("certify judges one plugin, given with --image or --plugin-dir, or one extension (--extension); --plugin and --plugin-image bind the catalogue's roles (cmp-conformance run)")
	case f.parallel > 1 && !f.selfTest:
		// Side by side, environments load the machine the subject's time
		// budget (PLUG-009) is measured on: a verdict must not depend on it.
		return fmt.Errorf("--parallel %d shares out a self-test's witnesses (--self-test); a certification alone runs in one environment, so that its time budget is measured on a machine nothing else of this run loads", f.parallel)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Read now: a missing image, one without plugin.yaml or with one
	// argocd-cmp-server would refuse is bad usage, said in a second.
	b, err := certify.Load(ctx, f.certify.library(&f.envFlags))
	if err != nil {
		return err
	}
	f.certify.binding = &b
	return nil
}
