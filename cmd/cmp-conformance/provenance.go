package main

import (
	"strings"

	"github.com/spf13/pflag"
)

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
