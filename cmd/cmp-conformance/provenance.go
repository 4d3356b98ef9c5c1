package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"runtime/debug"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// harness identifies this build from Go's build information: the module
// version ("(devel)" for a build from a checkout), the VCS revision and
// whether the tree was modified, and the executable's digest.
func harness() *v1alpha1.Harness {
	h := &v1alpha1.Harness{Module: "github.com/cmp-conformance/cmp-conformance", Version: "(unknown)"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		h.Module, h.Version, h.GoVersion = bi.Main.Path, bi.Main.Version, bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				h.Revision = s.Value
			case "vcs.modified":
				h.Modified = s.Value == "true"
			}
		}
	}
	if exe, err := os.Executable(); err == nil {
		h.SHA256, _ = fileSHA256(exe)
	}
	return h
}

// suiteVersionOf is the short form summary.md shows.
func suiteVersionOf(h *v1alpha1.Harness) string {
	v := h.Version
	if len(h.Revision) >= 12 {
		v += " " + h.Revision[:12]
	}
	if h.Modified {
		v += " (modified)"
	}
	return v
}

// programs digests what a plugin's commands run, found as its sidecar finds them.
func programs(p argocd.Plugin) []v1alpha1.Program {
	var out []v1alpha1.Program
	for _, name := range p.Programs {
		prog := v1alpha1.Program{Name: name}
		path, err := p.ProgramPath(name)
		if err == nil {
			prog.Path = path
			prog.SHA256, err = fileSHA256(path)
		}
		if err != nil {
			prog.Error = err.Error()
		}
		out = append(out, prog)
	}
	return out
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
