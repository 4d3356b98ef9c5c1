package upstream

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

func TestCorpusLoads(t *testing.T) {
	c, err := Load("corpus.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Plugins) < 5 {
		t.Errorf("%d plugins", len(c.Plugins))
	}
	for _, p := range c.Plugins {
		if !strings.HasPrefix(p.Plugin, "test/e2e/testdata/cmp-") || !strings.Contains(p.Test, "lines") {
			t.Errorf("%s: plugin %s, test %q: an upstream folder and the lines of its test", p.Name, p.Plugin, p.Test)
		}
	}
}

// A fake module: the samples are copied with the modes upstream's git
// holds, the certification loads as certify reads it, and the context has
// the plugin.yaml and the tools.
func TestMaterialize(t *testing.T) {
	module := t.TempDir()
	plug := filepath.Join(module, "test/e2e/testdata/cmp-x")
	if err := os.MkdirAll(filepath.Join(plug, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"plugin.yaml": "kind: ConfigManagementPlugin\n", "script.sh": "#!/bin/sh\n", "sub/a.yaml": "a: 1\n"} {
		if err := os.WriteFile(filepath.Join(plug, name), []byte(data), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	kustomize := filepath.Join(t.TempDir(), "kustomize")
	if err := os.WriteFile(kustomize, []byte("bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := Plugin{Name: "cmp-x", Plugin: "test/e2e/testdata/cmp-x", Tools: []string{"kustomize"},
		Modes:   map[string]string{"test/e2e/testdata/cmp-x/script.sh": "0755"},
		Samples: []conformance.Sample{{Name: "s", Path: "test/e2e/testdata/cmp-x", Access: "ssh"}}}
	ctxDir, file, err := p.Materialize(module, filepath.Join(t.TempDir(), "out"), map[string]string{"kustomize": kustomize})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := conformance.LoadCertification(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(cert.Samples) != 1 || cert.Samples[0].Access != "ssh" {
		t.Errorf("samples %+v", cert.Samples)
	}
	dir := filepath.Dir(file)
	for path, mode := range map[string]os.FileMode{"samples/s/script.sh": 0o755, "samples/s/sub/a.yaml": 0o644} {
		st, err := os.Stat(filepath.Join(dir, path))
		if err != nil || st.Mode().Perm() != mode {
			t.Errorf("%s: %v, %v; want mode %v", path, st, err, mode)
		}
	}
	for _, f := range []string{"Dockerfile", "plugin.yaml", "bin/kustomize"} {
		if _, err := os.Stat(filepath.Join(ctxDir, f)); err != nil {
			t.Errorf("context: %v", err)
		}
	}
}
