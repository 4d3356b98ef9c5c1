package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/cmp-conformance/cmp-conformance/plugins/sidecar"
)

// sidecarModes are broken variants of the reference parameterized plugin.
// Each is the reference program with one rule violated.
func sidecarModes() map[string]func() error {
	return map[string]func() error{
		// Announces as the reference does but drops the last component.
		"parameters-dropping-last": func() error {
			var out bytes.Buffer
			if err := sidecar.Announce(".", os.Environ(), &out); err != nil {
				return err
			}
			var anns []sidecar.Announcement
			if err := json.Unmarshal(out.Bytes(), &anns); err != nil {
				return err
			}
			var kept []sidecar.Announcement
			for _, a := range anns {
				if a.Name != "beta-values" {
					kept = append(kept, a)
				}
			}
			return json.NewEncoder(os.Stdout).Encode(kept)
		},
		// Announces without looking at the parameters it was given.
		"parameters-ignoring-input": func() error {
			return sidecar.Announce(".", without(os.Environ(), "ARGOCD_APP_PARAMETERS"), os.Stdout)
		},
		// Passes every PARAM_ value through a shell command line: the classic
		// injection the proposal warns about.
		"generate-through-shell": func() error {
			env := os.Environ()
			for i, kv := range env {
				k, v, _ := strings.Cut(kv, "=")
				if strings.HasPrefix(k, "PARAM_") {
					out, _ := exec.Command("sh", "-c", "printf '%s' "+v).Output()
					env[i] = k + "=" + string(out)
				}
			}
			return sidecar.Generate(".", env, os.Stdout)
		},
	}
}

func without(env []string, prefixes ...string) []string {
	var out []string
	for _, kv := range env {
		drop := false
		for _, p := range prefixes {
			drop = drop || strings.HasPrefix(kv, p)
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}

var dashOnly = regexp.MustCompile(`-`)

func misEscaped(env []string) []string {
	out := without(env, "PARAM_")
	var params []sidecar.Parameter
	_ = json.Unmarshal([]byte(sidecar.Environ(env)["ARGOCD_APP_PARAMETERS"]), &params)
	seen := map[string]bool{}
	add := func(k, v string) {
		if !seen[k] {
			seen[k] = true
			out = append(out, k+"="+v)
		}
	}
	wrong := func(s string) string { return dashOnly.ReplaceAllString(strings.ToUpper(s), "_") }
	for _, p := range params {
		base := "PARAM_" + wrong(p.Name)
		if p.String != nil {
			add(base, *p.String)
		}
		for i, v := range p.Array {
			add(base+"_"+strconv.Itoa(i), v)
		}
		keys := make([]string, 0, len(p.Map))
		for k := range p.Map {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			add(base+"_"+wrong(k), p.Map[k])
		}
	}
	return out
}
