package runner

import (
	"os"
	"runtime/debug"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// Harness identifies this build from Go's build information: the module
// version ("(devel)" for a build from a checkout), the VCS revision and
// whether the tree was modified, and the executable's digest. In an author's
// `go test`, the executable is their test binary and the module theirs; the
// report then names the version of this module they depend on.
func Harness() *v1alpha1.Harness {
	h := &v1alpha1.Harness{Module: modulePath, Version: "(unknown)"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		h.Module, h.Version, h.GoVersion = bi.Main.Path, bi.Main.Version, bi.GoVersion
		for _, d := range bi.Deps {
			if d.Path == modulePath {
				// An author's test binary: the revision would be theirs.
				h.Module, h.Version = d.Path, d.Version
				return withDigest(h)
			}
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				h.Revision = s.Value
			case "vcs.modified":
				h.Modified = s.Value == "true"
			}
		}
	}
	return withDigest(h)
}

const modulePath = "github.com/cmp-conformance/cmp-conformance"

// withDigest adds the running executable's digest.
func withDigest(h *v1alpha1.Harness) *v1alpha1.Harness {
	if exe, err := os.Executable(); err == nil {
		h.SHA256, _ = toolchain.FileSHA256(exe)
	}
	return h
}

// SuiteVersion is the short form summary.md shows.
func SuiteVersion(h *v1alpha1.Harness) string {
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
// An image plugin's programs are inside its image, which ImageID digests.
func programs(p argocd.Plugin) []v1alpha1.Program {
	if p.Image != "" {
		return nil
	}
	var out []v1alpha1.Program
	for _, name := range p.Programs {
		prog := v1alpha1.Program{Name: name}
		path, err := p.ProgramPath(name)
		if err == nil {
			prog.Path = path
			prog.SHA256, err = toolchain.FileSHA256(path)
		}
		if err != nil {
			prog.Error = err.Error()
		}
		out = append(out, prog)
	}
	return out
}
