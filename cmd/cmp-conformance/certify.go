package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/pluginimage"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

// certifySubject is the plugin a certify run judges, and its samples.
type certifySubject struct {
	image, config, dir, samples string
	// loaded is the subject once its image was read (certifyUsage): a bad
	// image is bad usage, answered before anything starts.
	loaded *argocd.Plugin
}

func certifyCommand() *cobra.Command {
	var f runFlags
	var s certifySubject
	var initFile bool
	cmd := &cobra.Command{
		Use:   "certify (--image REF | --plugin-dir DIR) [--samples certify.yaml]",
		Short: "Certify one plugin as it ships, on its own sample applications (the plugin profile)",
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

A check needing a feature the plugin does not declare (discover, parameters;
in certify.yaml: expect, failing, timeBudget) is not-supported, and the
feature listed as not declared. The level, as Gateway API grades:
  Conformant             0  no check failed
  Partially Conformant   1  the checks every plugin must pass passed, a check
                            of a declared feature failed (features that passed
                            listed)
  Not Conformant         1  a check every plugin must pass failed
  Not Certified          3  interrupted, or checks filtered out
  (bad usage             2, before anything starts: no image, no plugin.yaml,
                            a certify.yaml that does not load)
The report (<output>/reports/latest/summary.md) has a badge line
to paste in your README.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if initFile {
				return writeStarter(s.samples)
			}
			if err := s.validate(); err != nil {
				return err
			}
			f.certify = &s
			return run(&f)
		},
	}
	f.bind(cmd)
	fl := cmd.Flags()
	f.fs = fl
	fl.StringVar(&s.image, "image", "", "the plugin image to certify (on this machine: docker build or docker load it first)")
	fl.StringVar(&s.config, "config", "", "with --image: a plugin.yaml to mount over the image's own (as a ConfigMap would be), for an image that does not ship one")
	fl.StringVar(&s.dir, "plugin-dir", "", "the plugin folder to certify (plugin.yaml; its programs on --plugin-path)")
	fl.StringVar(&s.samples, "samples", "certify.yaml", "the certification file: your sample applications (write one with --init)")
	fl.BoolVar(&initFile, "init", false, "write a commented starter certification file at --samples and stop")
	fl.StringVar(&f.labelFilter, "label-filter", os.Getenv("LABEL_FILTER"), "Ginkgo label filter selecting checks (IDs, levels, features)")
	fl.BoolVar(&f.selfTest, "self-test", false, "also run the profile against the witnesses of plugins/broken (profile plugin), which must fail the checks they violate")
	fl.BoolVar(&f.failFast, "fail-fast", false, "stop at the first failed check")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "verbose Ginkgo output")
	fl.DurationVar(&f.timeout, "timeout", time.Hour, "bound on the whole suite")
	f.parallel = 1
	// The roles of the catalogue do not apply here.
	for _, name := range []string{"plugin", "plugin-image"} {
		_ = fl.MarkHidden(name)
	}
	return cmd
}

// validate answers bad certify usage before anything slow starts.
func (s *certifySubject) validate() error {
	switch {
	case s.image == "" && s.dir == "":
		return errors.New("give the plugin to certify: --image REF (an image on this machine) or --plugin-dir DIR (a folder with plugin.yaml)")
	case s.image != "" && s.dir != "":
		return errors.New("--image and --plugin-dir name the subject twice: choose one")
	case s.config != "" && s.image == "":
		return errors.New("--config goes with --image (the plugin.yaml mounted over the image's); a --plugin-dir holds its own plugin.yaml")
	}
	if s.dir != "" {
		if _, err := argocd.LoadPlugin(s.dir); err != nil {
			return err
		}
	}
	_, err := conformance.LoadCertification(s.samples)
	return err
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
		return errors.New("certify judges one plugin, given with --image or --plugin-dir; --plugin and --plugin-image bind the catalogue's roles (cmp-conformance run)")
	case f.certify.image != "" && f.runtime != "embedded":
		return fmt.Errorf("--image runs on the embedded runtime only, for now (its sidecar dials the repo-server's socket folder on this host); --runtime %s cannot run plugin images yet", f.runtime)
	}
	if f.certify.image == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := pluginimage.Ping(ctx); err != nil {
		return err
	}
	owner, err := filepath.Abs(f.output)
	if err != nil {
		return err
	}
	// Read now: a missing image, one without plugin.yaml or with one
	// argocd-cmp-server would refuse is bad usage, said in a second.
	dir := filepath.Join(owner, "plugin-images", "subject")
	var p argocd.Plugin
	if f.certify.config != "" {
		p, err = argocd.LoadPluginImageWithConfig(ctx, f.certify.image, f.certify.config, dir)
	} else {
		p, err = argocd.LoadPluginImage(ctx, f.certify.image, dir, owner)
	}
	if err != nil {
		return fmt.Errorf("--image: %w", err)
	}
	f.certify.loaded = &p
	return nil
}

// planCertify binds the subject (and, with selfTest, the witnesses of the
// plugin profile) with their certifications.
func planCertify(root string, s *certifySubject, selfTest bool) (*pluginPlan, error) {
	cert, err := conformance.LoadCertification(s.samples)
	if err != nil {
		return nil, err
	}
	var p argocd.Plugin
	switch {
	case s.loaded != nil:
		p = *s.loaded
	case s.image != "":
		return nil, errors.New("the image was not read before the run (certifyUsage)")
	default:
		if p, err = argocd.LoadPlugin(s.dir); err != nil {
			return nil, err
		}
	}
	claim(&p, cert)
	plan := &pluginPlan{Checks: conformance.Profile()}
	plan.add(conformance.Binding{Name: "certify", Certification: cert,
		Subjects: map[conformance.Role]conformance.Subject{conformance.RoleSubject: {Role: conformance.RoleSubject, Plugin: p}}})
	if !selfTest {
		return plan, nil
	}
	if root == "" {
		return nil, errors.New("--self-test needs the repository checkout (plugins/broken)")
	}
	return plan, plan.addWitnesses(root, profilePlugin)
}

// claim adds what the certification declares to the plugin's features.
func claim(p *argocd.Plugin, cert *conformance.Certification) {
	for _, f := range cert.Claims() {
		p.Features[string(f)] = true
	}
}
