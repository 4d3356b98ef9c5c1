package certify

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateRefusesBadConfigs(t *testing.T) {
	plain := filepath.Join("..", "..", "plugins", "plain")
	samples := filepath.Join(plain, "certify.yaml")
	for name, tt := range map[string]struct {
		c    Config
		want string
	}{
		"no subject":      {c: Config{Samples: samples}, want: "name the plugin to certify"},
		"two subjects":    {c: Config{Image: "x:1", PluginDir: plain, Samples: samples}, want: "choose one"},
		"no plugin.yaml":  {c: Config{PluginDir: t.TempDir(), Samples: samples}, want: "must hold plugin.yaml"},
		"no samples file": {c: Config{PluginDir: plain, Samples: filepath.Join(t.TempDir(), "certify.yaml")}, want: "certify --init"},
		"config alone":    {c: Config{PluginDir: plain, PluginYAML: "plugin.yaml", Samples: samples}, want: "goes with an image"},
	} {
		if err := tt.c.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Validate() = %v, want %q", name, err, tt.want)
		}
	}
}

// Load binds a folder plugin with its samples, the certification's claims
// added to its features; a missing image is an error that says what to do.
func TestLoad(t *testing.T) {
	plain := filepath.Join("..", "..", "plugins", "plain")
	b, err := Load(context.Background(), Config{PluginDir: plain, Samples: filepath.Join(plain, "certify.yaml"), Output: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if b.Name != bindingName || b.Certification == nil || b.Witness {
		t.Errorf("binding = %+v", b)
	}
	sub, ok := b.Subjects["subject"]
	if !ok || sub.Plugin.Name == "" {
		t.Fatalf("no subject in %+v", b.Subjects)
	}
	for _, f := range b.Certification.Claims() {
		if !sub.Plugin.Has(string(f)) {
			t.Errorf("claimed feature %s is not the subject's", f)
		}
	}
	if _, err := exec.LookPath("docker"); err != nil {
		return
	}
	_, err = Load(context.Background(), Config{Image: "cmp-conformance-test/absent:never", Samples: filepath.Join(plain, "certify.yaml"), Output: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "not present on this machine") {
		t.Errorf("Load of a missing image = %v", err)
	}
}
