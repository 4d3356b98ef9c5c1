// Package upstream is the corpus of Argo CD's own e2e plugins
// (test/e2e/testdata/cmp-* of the argo-cd module at the version under
// test), each certified as its author would ship it, on the samples and
// environment its upstream test uses, against the outcome corpus.yaml
// derives from that test's assertions.
package upstream

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/cmp-conformance/cmp-conformance/internal/files"
	"github.com/cmp-conformance/cmp-conformance/suites/conformance"
)

// Corpus is corpus.yaml.
type Corpus struct {
	Plugins []Plugin `json:"plugins"`
}

// Plugin is one upstream plugin, its samples and the outcome expected.
type Plugin struct {
	Name string `json:"name"`
	// Plugin is the module's folder holding its plugin.yaml.
	Plugin string `json:"plugin"`
	// Tools are programs of the toolchain its commands run (kustomize),
	// put on the image's PATH.
	Tools []string `json:"tools,omitempty"`
	// Test names the upstream test and its lines.
	Test    string               `json:"test"`
	Samples []conformance.Sample `json:"samples"`
	// Modes are file modes (octal) upstream's git holds and the module zip
	// lost, by module path.
	Modes  map[string]string `json:"modes,omitempty"`
	Level  string            `json:"level"`
	Failed []string          `json:"failed"`
	Why    string            `json:"why"`
}

// Load reads and checks corpus.yaml.
func Load(file string) (*Corpus, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var c Corpus
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	seen := map[string]bool{}
	for _, p := range c.Plugins {
		switch {
		case p.Name == "" || seen[p.Name]:
			return nil, fmt.Errorf("%s: plugin %q: a unique name is needed", file, p.Name)
		case p.Plugin == "" || len(p.Samples) == 0 || p.Test == "" || p.Why == "":
			return nil, fmt.Errorf("%s: plugin %s: plugin, samples, test and why are needed", file, p.Name)
		case !slices.Contains([]string{"Conformant", "Partially Conformant", "Not Conformant"}, p.Level):
			return nil, fmt.Errorf("%s: plugin %s: level %q", file, p.Name, p.Level)
		}
		seen[p.Name] = true
	}
	return &c, nil
}

// Tag is the image the plugin is built as, for one Argo CD version.
func (p Plugin) Tag(version string) string {
	return "cmp-conformance/upstream-" + strings.ToLower(p.Name) + ":" + version
}

// Dockerfile is how its author would ship it: a Debian base (BASE) with
// the shell tools its commands run, the toolchain's programs it names,
// plugin.yaml where argocd-cmp-server reads it, uid 999.
const Dockerfile = `ARG BASE
FROM ${BASE}
COPY plugin.yaml /home/argocd/cmp-server/config/plugin.yaml
COPY bin/ /usr/local/bin/
USER 999
ENTRYPOINT ["/var/run/argocd/argocd-cmp-server"]
`

// Materialize writes, under dir, the image's build context (context/:
// Dockerfile, plugin.yaml, bin/ with tools, each name mapped to its
// binary) and the certification (certify.yaml, its samples copied from the
// module at moduleDir with the modes upstream's git holds). It returns the
// context folder and the certification file.
func (p Plugin) Materialize(moduleDir, dir string, tools map[string]string) (string, string, error) {
	if err := os.RemoveAll(dir); err != nil {
		return "", "", err
	}
	ctxDir := filepath.Join(dir, "context")
	if err := os.MkdirAll(filepath.Join(ctxDir, "bin"), 0o755); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(filepath.Join(ctxDir, "Dockerfile"), []byte(Dockerfile), 0o644); err != nil {
		return "", "", err
	}
	if err := files.Copy(filepath.Join(moduleDir, p.Plugin, "plugin.yaml"), filepath.Join(ctxDir, "plugin.yaml"), 0o644); err != nil {
		return "", "", err
	}
	// An empty bin/ keeps the COPY valid.
	if err := os.WriteFile(filepath.Join(ctxDir, "bin", ".keep"), nil, 0o644); err != nil {
		return "", "", err
	}
	for _, t := range p.Tools {
		bin, ok := tools[t]
		if !ok {
			return "", "", fmt.Errorf("plugin %s needs %s, which the toolchain did not give", p.Name, t)
		}
		if err := files.Copy(bin, filepath.Join(ctxDir, "bin", t), 0o755); err != nil {
			return "", "", err
		}
	}
	cert := conformance.Certification{}
	for _, sm := range p.Samples {
		to := filepath.Join(dir, "samples", sm.Name)
		if err := copyTree(filepath.Join(moduleDir, sm.Path), to, sm.Path, p.Modes); err != nil {
			return "", "", fmt.Errorf("plugin %s, sample %s: %w", p.Name, sm.Name, err)
		}
		sm.Path = "samples/" + sm.Name
		cert.Samples = append(cert.Samples, sm)
	}
	data, err := yaml.Marshal(map[string]any{"apiVersion": "cmp-conformance.io/v1alpha1", "kind": "Certification", "samples": cert.Samples})
	if err != nil {
		return "", "", err
	}
	file := filepath.Join(dir, "certify.yaml")
	head := fmt.Sprintf("# %s, from the argo-cd module's %s: its upstream test is %s.\n", p.Name, p.Plugin, p.Test)
	return ctxDir, file, os.WriteFile(file, append([]byte(head), data...), 0o644)
}

// copyTree copies the module folder from (module path rel) to to, files
// writable by their owner and modes restored from modes.
func copyTree(from, to, rel string, modes map[string]string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		sub, _ := filepath.Rel(from, path)
		target := filepath.Join(to, sub)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", path)
		}
		mode := os.FileMode(0o644)
		if m, ok := modes[filepath.ToSlash(filepath.Join(rel, sub))]; ok {
			v, err := strconv.ParseUint(m, 8, 32)
			if err != nil {
				return fmt.Errorf("mode %q of %s: %w", m, sub, err)
			}
			mode = os.FileMode(v)
		}
		return files.Copy(path, target, mode)
	})
}
