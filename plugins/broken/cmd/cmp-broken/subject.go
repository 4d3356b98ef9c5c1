package main

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
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
