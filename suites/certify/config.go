// Package certify certifies one Config Management Plugin as it ships, on its
// author's sample applications: the plugin profile (checks PLUG-*) as a
// library, for an author's own `go test`. It is what `cmp-conformance
// certify` runs, in csi-sanity's shape: a Config in, a test tree out.
//
// The plain testing.T form:
//
//	func TestCertify(t *testing.T) {
//		certify.Test(t, certify.Config{Image: "my-plugin:1.4", Samples: "certify.yaml"})
//	}
//
// The Ginkgo form, beside the author's own specs:
//
//	var _ = certify.Describe(certify.Config{Image: "my-plugin:1.4"})
//
// Either brings up the embedded environment (Kubernetes and Argo CD as
// processes, the plugin's image as Argo CD's documented sidecar), runs the
// profile, takes the environment down and writes the report under
// Config.Output. A cold machine builds Argo CD's binaries first (minutes; they
// are cached under $XDG_CACHE_HOME/cmp-conformance): give `go test` a
// -timeout that allows it.
package certify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/extension"
	"github.com/cmp-conformance/cmp-conformance/fixtures/pluginimage"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
	"github.com/cmp-conformance/cmp-conformance/reports"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

// Config is the plugin to certify, its samples, and where the run happens.
type Config struct {
	// Image is the plugin as it ships: an image present on this machine
	// (nothing is pulled), its plugin.yaml read from pluginimage.ConfigPath.
	Image string
	// PluginYAML, with Image, is a plugin.yaml of the host mounted over the
	// image's own, as a ConfigMap would be.
	PluginYAML string
	// PluginDir is a folder with plugin.yaml, for a plugin developed on the
	// host instead of an image; its programs are found on PluginPath.
	PluginDir  string
	PluginPath []string
	// Extension is an Argo CD extension folder to certify instead of a
	// plugin (the extension profile: the checks of area extensions), on
	// its own health_test.yaml and action_test.yaml; Samples is not read.
	Extension string
	// Samples is the certification file (default "certify.yaml"):
	// `cmp-conformance certify --init` writes a commented starter.
	Samples string
	// ArgoCDVersion is the Argo CD to judge the plugin on ("": the newest
	// this machine can obtain).
	ArgoCDVersion string
	// Output holds the reports (<Output>/reports/<run-id>, and
	// <Output>/reports/latest) and the environment's state (default
	// "_output").
	Output string
	// PortBase is the first of the 127.0.0.1 ports the run listens on (see
	// `cmp-conformance run --help`). Unset, the run takes the first range
	// from 18080 (100 apart) that no other run of this machine holds, so
	// that go test can certify several packages side by side.
	PortBase int
	// ReadyTimeout bounds each wait of the bring-up (default 2 minutes),
	// counted from the run's turn: runs on one machine take turns at bring-ups.
	ReadyTimeout time.Duration
	// WorkOnDisk keeps the run's work folder on TMPDIR's disk; by default
	// it is a tmpfs where the machine can give one (`--work-tmpfs`).
	WorkOnDisk bool
	// Toolchain says how Argo CD's binaries are obtained (cached, downloaded
	// or built from source).
	Toolchain toolchain.Options
	// Progress receives the bring-up's progress and the verdict (default
	// os.Stderr; io.Discard for none).
	Progress io.Writer
	// Entrypoint, with Image, is what its sidecar runs, over the
	// certification's entrypoint: "argocd" (Argo CD's documented command)
	// or "image" (the image's own ENTRYPOINT).
	Entrypoint string
	// Level is the certification level the author's test wants (default
	// Conformant): Test and Describe fail unless the run reaches exactly
	// it. A run that leaves a check of the profile out (a label filter, a
	// runtime that cannot run it) is Not Certified.
	Level string
}

func (c Config) withDefaults() Config {
	if c.Samples == "" {
		c.Samples = "certify.yaml"
	}
	if c.Output == "" {
		c.Output = "_output"
	}
	if c.ReadyTimeout == 0 {
		c.ReadyTimeout = 2 * time.Minute
	}
	if c.Progress == nil {
		c.Progress = os.Stderr
	}
	if c.Level == "" {
		c.Level = v1alpha1.LevelConformant
	}
	if c.Toolchain.Progress == nil {
		c.Toolchain.Progress = c.Progress
	}
	return c
}

// Validate answers a Config that names no plugin, or names it twice, and a
// plugin folder or certification file that does not load: at once, before
// anything starts. Load does the same, and reads an image too.
func (c Config) Validate() error {
	c = c.withDefaults()
	if err := c.subjectProblem(); err != nil {
		return err
	}
	if c.Extension != "" {
		_, err := extension.Load(c.Extension)
		return err
	}
	if c.PluginDir != "" {
		if _, err := argocd.LoadPlugin(c.PluginDir); err != nil {
			return err
		}
	}
	_, err := conformance.LoadCertification(c.Samples)
	return err
}

// Profile is the profile the run certifies its subject by: the plugin
// profile, or the extension profile for an extension.
func (c Config) Profile() string {
	if c.Extension != "" {
		return reports.ProfileExtension
	}
	return reports.ProfilePlugin
}

// Checks are the checks of the subject's profile.
func (c Config) Checks() []conformance.Check {
	if c.Extension != "" {
		return conformance.ExtensionProfile()
	}
	return conformance.Profile()
}

// levels are the certification levels, best first.
var levels = []string{v1alpha1.LevelConformant, v1alpha1.LevelPartiallyConformant, v1alpha1.LevelNotConformant, v1alpha1.LevelNotCertified}

// levelProblem says how a run's report departs from the level wanted; ""
// when it reached it.
func levelProblem(rep *v1alpha1.ConformanceReport, want string) string {
	if rep == nil || rep.Certification == nil {
		if want == v1alpha1.LevelNotCertified {
			return ""
		}
		return fmt.Sprintf("no check of the profile ran (a label filter that selects none?), so nothing was certified; want %s", want)
	}
	if got := rep.Certification.Level; got != want {
		why := rep.Summary.Reasons
		if len(why) == 0 {
			why = []string{"every check that ran passed"}
		}
		kind := "plugin"
		if rep.Profile == reports.ProfileExtension {
			kind = "extension"
		}
		return fmt.Sprintf("the %s is %s, want %s:\n  %s", kind, got, want, strings.Join(why, "\n  "))
	}
	return ""
}

// subjectProblem refuses a Config that names no plugin, or names it twice.
func (c Config) subjectProblem() error {
	switch {
	case c.Extension != "" && (c.Image != "" || c.PluginDir != "" || c.PluginYAML != "" || c.Entrypoint != ""):
		return errors.New("an extension (--extension, Config.Extension) is certified alone: give no plugin (--image, --plugin-dir, --config, --entrypoint) with it")
	case c.Extension != "":
	case c.Image == "" && c.PluginDir == "":
		return errors.New("name what to certify: a plugin image on this machine (--image, Config.Image), a folder with plugin.yaml (--plugin-dir, Config.PluginDir), or an Argo CD extension folder (--extension, Config.Extension)")
	case c.Image != "" && c.PluginDir != "":
		return errors.New("an image (--image, Config.Image) and a folder (--plugin-dir, Config.PluginDir) name the plugin twice: choose one")
	case c.PluginYAML != "" && c.Image == "":
		return errors.New("a plugin.yaml to mount (--config, Config.PluginYAML) goes with an image; a plugin folder holds its own plugin.yaml")
	case c.Entrypoint != "" && c.Image == "":
		return errors.New("an entrypoint (--entrypoint, Config.Entrypoint) is what an image's sidecar runs: give it with an image")
	case c.Entrypoint != "" && c.Entrypoint != conformance.EntrypointArgoCD && c.Entrypoint != conformance.EntrypointImage:
		return fmt.Errorf("entrypoint %q: give %s (Argo CD's documented command) or %s (the image's own ENTRYPOINT)", c.Entrypoint, conformance.EntrypointArgoCD, conformance.EntrypointImage)
	case !slices.Contains(levels, c.Level):
		return fmt.Errorf("Config.Level %q: want one of %s", c.Level, strings.Join(levels, ", "))
	}
	return nil
}

// Load reads the plugin (from its image, through Docker: a second or two)
// and its certification, and binds them: the binding the profile judges.
// A missing image, one without plugin.yaml, or a plugin.yaml
// argocd-cmp-server would refuse is an error here, before anything starts.
func Load(ctx context.Context, c Config) (conformance.Binding, error) {
	c = c.withDefaults()
	if err := c.subjectProblem(); err != nil {
		return conformance.Binding{}, err
	}
	if c.Extension != "" {
		ext, err := extension.Load(c.Extension)
		if err != nil {
			return conformance.Binding{}, err
		}
		return conformance.Binding{Name: bindingName, Subjects: map[conformance.Role]conformance.Subject{
			conformance.RoleExtension: {Role: conformance.RoleExtension, Extension: ext}}}, nil
	}
	cert, err := conformance.LoadCertification(c.Samples)
	if err != nil {
		return conformance.Binding{}, err
	}
	if c.Entrypoint != "" {
		cert.Entrypoint = c.Entrypoint
	}
	var p argocd.Plugin
	if c.Image == "" {
		if p, err = argocd.LoadPlugin(c.PluginDir); err != nil {
			return conformance.Binding{}, err
		}
		return cert.Bind(bindingName, p), nil
	}
	if err := pluginimage.Ping(ctx); err != nil {
		return conformance.Binding{}, err
	}
	owner, err := filepath.Abs(c.Output)
	if err != nil {
		return conformance.Binding{}, err
	}
	// The plugin.yaml the run judges is kept with the run's files.
	dir := filepath.Join(owner, "plugin-images", "subject")
	if c.PluginYAML != "" {
		p, err = argocd.LoadPluginImageWithConfig(ctx, c.Image, c.PluginYAML, dir)
	} else {
		p, err = argocd.LoadPluginImage(ctx, c.Image, dir, owner)
	}
	if err != nil {
		return conformance.Binding{}, fmt.Errorf("--image: %w", err)
	}
	return cert.Bind(bindingName, p), nil
}

// bindingName names the subject's binding in the report and the test tree.
const bindingName = "certify"
