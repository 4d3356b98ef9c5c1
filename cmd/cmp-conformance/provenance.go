package main

import (
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/pflag"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
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
		h.SHA256, _ = toolchain.FileSHA256(exe)
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

// reproduce is the command line that runs the same run again: every flag
// given (or taken from the environment, like LABEL_FILTER), with the Argo CD
// version pinned to the one resolved, shell-quoted. Hidden flags are the
// parent's wiring of a parallel run and are left out.
func reproduce(f *runFlags, version string) string {
	parts := []string{"cmp-conformance", "run"}
	if f.certify != nil {
		parts[1] = "certify"
	}
	if f.upgradePath == "" {
		parts = append(parts, "--argocd-version", version)
	}
	if f.fs == nil {
		return strings.Join(parts, " ")
	}
	f.fs.VisitAll(func(fl *pflag.Flag) {
		if fl.Hidden || fl.Name == "argocd-version" {
			return
		}
		// Defaults that came from the environment count as given.
		if !fl.Changed && fl.Value.String() == fl.DefValue && !fromEnv(fl) {
			return
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				parts = append(parts, "--"+fl.Name, shellQuote(v))
			}
			return
		}
		parts = append(parts, "--"+fl.Name+"="+shellQuote(fl.Value.String()))
	})
	return strings.Join(parts, " ")
}

// fromEnv says whether a flag's default was read from the environment
// (its value is then part of the run, though not on the command line).
func fromEnv(fl *pflag.Flag) bool {
	switch fl.Name {
	case "label-filter":
		return fl.Value.String() != ""
	case "parallel":
		return fl.Value.String() != "1"
	}
	return false
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,@+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
