package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/plugins"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

func TestCertifyRefusesBadUsage(t *testing.T) {
	root := checkoutRoot(t)
	plain, samples := filepath.Join(root, "plugins", "plain"), filepath.Join(root, "plugins", "plain", "certify.yaml")
	if err := (&certifySubject{samples: samples}).library(&envFlags{}).Validate(); err == nil || !strings.Contains(err.Error(), "--image") {
		t.Errorf("no subject: %v, want the flags named", err)
	}
	f := runFlags{envFlags: envFlags{runtime: "embedded", plugins: []string{"plain=" + plain}, certify: &certifySubject{dir: plain, samples: samples}}}
	if err := f.certifyUsage(); err == nil || !strings.Contains(err.Error(), "judges one plugin") {
		t.Errorf("certify with --plugin: %v", err)
	}
	f = runFlags{envFlags: envFlags{runtime: "existing", certify: &certifySubject{dir: plain, samples: samples}}}
	if err := f.inClusterUsage(); err == nil || !strings.Contains(err.Error(), "certify it with --image") {
		t.Errorf("certify --plugin-dir on the existing runtime: %v", err)
	}
	ext := filepath.Join(root, "plugins", "extension")
	for _, rt := range []string{"kind", "existing"} {
		f = runFlags{envFlags: envFlags{runtime: rt, certify: &certifySubject{extension: ext}}}
		if err := f.inClusterUsage(); err != nil {
			t.Errorf("certify --extension on %s: %v", rt, err)
		}
	}
	if _, err := exec.LookPath("docker"); err == nil {
		f = runFlags{envFlags: envFlags{runtime: "embedded", certify: &certifySubject{image: "cmp-conformance-test/absent:never", samples: samples}}}
		if err := f.certifyUsage(); err == nil || !strings.Contains(err.Error(), "not present on this machine") {
			t.Errorf("certify --image of a missing image: %v", err)
		}
	}
}

func TestCertifyInitWritesOnce(t *testing.T) {
	file := filepath.Join(t.TempDir(), "certify.yaml")
	if err := writeStarter(file); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil || string(data) != conformance.CertificationStarter {
		t.Fatalf("the starter was not written as is: %v", err)
	}
	if err := os.WriteFile(file, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeStarter(file); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("writeStarter over an existing file = %v, want a refusal", err)
	}
	if data, _ := os.ReadFile(file); string(data) != "mine" {
		t.Error("the author's file was overwritten")
	}
}

// A certify plan binds the subject alone, with what its certification
// claims, to the plugin profile; with self-test, the profile's witnesses.
func TestPlanCertify(t *testing.T) {
	root := checkoutRoot(t)
	s := &certifySubject{dir: filepath.Join(root, "plugins", "plain"), samples: filepath.Join(root, "plugins", "plain", "certify.yaml")}
	f := runFlags{envFlags: envFlags{runtime: "embedded", output: t.TempDir(), certify: s}}
	if err := f.certifyUsage(); err != nil {
		t.Fatal(err)
	}
	plan, err := plugins.CertifyPlan(root, *s.binding, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Bindings) != 1 || len(plan.Plugins) != 1 || plan.Bindings[0].Certification == nil {
		t.Fatalf("plan: %d bindings, %d plugins; want the subject alone with its certification", len(plan.Bindings), len(plan.Plugins))
	}
	p := plan.Bindings[0].Subjects[conformance.RoleSubject].Plugin
	for _, f := range []conformance.Feature{conformance.ExpectedOutput, conformance.FailingInput, conformance.Discovery} {
		if !p.Features[string(f)] {
			t.Errorf("the subject does not have feature %s", f)
		}
	}
	for _, c := range plan.Checks {
		if c.Area != conformance.Plugin {
			t.Errorf("a certify run would run %s (area %s)", c.ID, c.Area)
		}
	}
	if len(plan.Checks) == 0 {
		t.Error("a certify run has no checks")
	}
	withWitnesses, err := plugins.CertifyPlan(root, *s.binding, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range withWitnesses.Bindings[1:] {
		if !b.Witness || b.Certification == nil {
			t.Errorf("binding %s: a witness of the plugin profile with its own samples expected", b.Name)
		}
	}
}

func TestCertifyReproduces(t *testing.T) {
	cmd := certifyCommand()
	if err := cmd.ParseFlags([]string{"--image", "mine:1", "--samples", "my/certify.yaml"}); err != nil {
		t.Fatal(err)
	}
	// The report's command line is read from the command's flag set.
	f := &runFlags{fs: cmd.Flags(), envFlags: envFlags{certify: &certifySubject{image: "mine:1"}}}
	got := reproduce(f, "v3.6.1")
	for _, want := range []string{"cmp-conformance certify --argocd-version v3.6.1", "--image=mine:1", "--samples=my/certify.yaml"} {
		if !strings.Contains(got, want) {
			t.Errorf("reproduce = %q, want it to hold %q", got, want)
		}
	}
}
