package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/cmp-conformance/cmp-conformance/plugins/sidecar"
)

// wrapperModes run another program (the rest of the command line) with an
// environment they really changed, as a plugin's wrapper script would: the
// program they start is the honest reference, which records what it
// received. Nothing is forged: the environment it reads is the one it got.
func wrapperModes() map[string]func(env []string) []string {
	return map[string]func(env []string) []string{
		// Starts the program with parameters, plugin env and build env
		// removed, as a wrapper that sanitizes its environment does.
		"exec-dropping-environment": func(env []string) []string {
			return without(env, "PARAM_", "ARGOCD_ENV_", "ARGOCD_APP_", "KUBE_")
		},
		// Starts the program with PARAM_ variables recomputed from
		// ARGOCD_APP_PARAMETERS by a wrong escaping (only '-' becomes '_',
		// and the first of colliding names wins), and each string
		// parameter exported under its own name too, as a wrapper that
		// exports the parameters itself does: a parameter named like a
		// build variable then overrides it.
		"exec-mis-escaping": func(env []string) []string {
			out := misEscaped(env)
			var params []sidecar.Parameter
			_ = json.Unmarshal([]byte(sidecar.Environ(env)["ARGOCD_APP_PARAMETERS"]), &params)
			for _, p := range params {
				if p.String != nil {
					name := strings.ToUpper(strings.ReplaceAll(p.Name, "-", "_"))
					out = append(without(out, name+"="), name+"="+*p.String)
				}
			}
			return out
		},
	}
}

// execWrapped replaces this process with args[0] (looked up on PATH) and
// args[1:], under the environment the wrapper mode makes.
func execWrapped(mode func([]string) []string, args []string) error {
	if len(args) == 0 {
		return errors.New("a wrapper mode needs the program to run: cmp-broken MODE PROGRAM [ARG...]")
	}
	path, err := exec.LookPath(args[0])
	if err != nil {
		return fmt.Errorf("the wrapped program: %w", err)
	}
	return syscall.Exec(path, args, mode(os.Environ()))
}
