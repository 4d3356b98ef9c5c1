package main

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cmp-conformance/cmp-conformance/plugins/contract"
	"github.com/cmp-conformance/cmp-conformance/plugins/plain"
)

// subjectModes are plugins that break the plugin profile's rules (PLUG-*):
// each generates like the plain plugin, but for one thing.
func subjectModes() map[string]func() error {
	return map[string]func() error{
		// Stamps its output with a value of its own, new every time: two
		// generations of one revision differ.
		"generate-stamped": func() error {
			if err := generatePlain(); err != nil {
				return err
			}
			b := make([]byte, 8)
			_, _ = rand.Read(b)
			_, err := fmt.Printf("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: stamp\ndata:\n  nonce: %q\n", hex.EncodeToString(b))
			return err
		},
		// Adds an object whose name the API server refuses (capitals, an
		// underscore): the application never syncs.
		"generate-bad-name": func() error {
			if err := generatePlain(); err != nil {
				return err
			}
			_, err := fmt.Print("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Not_A_Name\ndata: {}\n")
			return err
		},
		// Takes four seconds to render, whatever its source: over a budget
		// of two.
		"generate-slow": func() error {
			time.Sleep(4 * time.Second)
			return generatePlain()
		},
		// Keeps a copy of what it rendered in a cache of its own in /tmp,
		// outside the working copy: the next application can read it.
		"generate-caching": func() error {
			var out bytes.Buffer
			if err := plain.Generate(".", &out); err != nil {
				return err
			}
			dir := filepath.Join(os.TempDir(), "cmp-broken-cache")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, hex.EncodeToString(out.Bytes()[:8])), out.Bytes(), 0o644); err != nil {
				return err
			}
			_, err := os.Stdout.Write(out.Bytes())
			return err
		},
		// Templates a Secret holding the repository's account, obtained
		// through GIT_ASKPASS as git would, for a job of its own to clone
		// with: whoever can read the namespace now can. Without credentials
		// to obtain, it generates like the plain plugin.
		"generate-leaking-credentials": func() error {
			if err := generatePlain(); err != nil {
				return err
			}
			prog, host := os.Getenv("GIT_ASKPASS"), os.Getenv("ARGOCD_APP_SOURCE_REPO_URL")
			if prog == "" {
				return nil
			}
			user, err := contract.Askpass(prog, fmt.Sprintf("Username for '%s': ", host))
			if err != nil {
				return nil
			}
			pw, err := contract.Askpass(prog, fmt.Sprintf("Password for '%s': ", host))
			if err != nil || pw == "" {
				return nil
			}
			b64 := base64.StdEncoding.EncodeToString
			_, err = fmt.Printf("---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: clone-credentials\ndata:\n  username: %s\n  password: %s\n", b64([]byte(user)), b64([]byte(pw)))
			return err
		},
		// Puts its parameters into a ConfigMap as a shell script built on
		// `echo "$ARGUMENTS" | xargs` would (the seed's simple Helm CMP):
		// each value word-split, only its first word kept. The YAML stays
		// well formed; the values do not arrive.
		"generate-word-splitting": func() error {
			if err := generatePlain(); err != nil {
				return err
			}
			var params []struct {
				Name   string            `json:"name"`
				String string            `json:"string"`
				Array  []string          `json:"array"`
				Map    map[string]string `json:"map"`
			}
			if p := os.Getenv("ARGOCD_APP_PARAMETERS"); p != "" && p != "null" {
				if err := json.Unmarshal([]byte(p), &params); err != nil {
					return err
				}
			}
			first := func(v string) string {
				if f := strings.Fields(v); len(f) > 0 {
					return f[0]
				}
				return ""
			}
			data := map[string]string{}
			for _, p := range params {
				data[p.Name] = first(p.String)
				for i, v := range p.Array {
					data[fmt.Sprintf("%s.%d", p.Name, i)] = first(v)
				}
				for k, v := range p.Map {
					data[p.Name+"."+k] = first(v)
				}
			}
			cm, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]string{"name": "parameters"}, "data": data})
			if err != nil {
				return err
			}
			_, err = fmt.Printf("---\n%s\n", cm)
			return err
		},
		// Labels its output with each ARGOCD_ENV_ value, passed through a
		// shell command line to trim it: a value is executed.
		"generate-echoing-env": func() error {
			for _, kv := range os.Environ() {
				if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "ARGOCD_ENV_") {
					_, _ = exec.Command("sh", "-c", "printf '%s' "+v).Output()
				}
			}
			return generatePlain()
		},
	}
}

func generatePlain() error {
	var out bytes.Buffer
	if err := plain.Generate(".", &out); err != nil {
		return err
	}
	_, err := os.Stdout.Write(out.Bytes())
	return err
}
