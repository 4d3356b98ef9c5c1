package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cmp-conformance/cmp-conformance/plugins/contract"
	"github.com/cmp-conformance/cmp-conformance/plugins/plain"
)

// contractModes are broken variants of cmp-contract for the DISC, INIT,
// MODE and LINK witnesses. Each takes the argument cmp-contract would (a
// marker or the plugin's name). The variants that stand for a fault of Argo
// CD (a mode not kept, a link not delivered, a wrong folder) commit that
// fault on the working copy before recording it, so the record stays true.
func contractModes() map[string]func(arg string) error {
	return map[string]func(string) error{
		// Matches whenever its marker is there, whatever the marker asks:
		// as if Argo CD took any exit code or any output for a match.
		"find-any-exit": func(marker string) error {
			if os.Getenv(contract.FindEnv) == marker {
				fmt.Println("matched by env")
				return nil
			}
			if data, err := os.ReadFile(marker); err == nil {
				// DISC-009's hang and the find that awaits it are the reference's.
				if strings.HasPrefix(string(data), "hang ") || strings.HasPrefix(string(data), "await /") {
					return contract.FindOrHang(".", marker, os.Getenv, os.Stdout, false)
				}
				fmt.Println("found", marker)
			}
			return nil
		},
		// Hangs as cmp-contract's find does, but its child escapes to a
		// session of its own, where a kill of the command's process group
		// does not reach: a plugin that leaves a process running.
		"find-escaping-hang": func(marker string) error {
			return contract.FindOrHang(".", marker, os.Getenv, os.Stdout, true)
		},
		contract.HangChildArg: func(record string) error {
			contract.HangChild(record)
			return nil
		},
		// Reads no environment: as if Argo CD gave the command none.
		"find-without-env": func(marker string) error {
			return contract.FindOrHang(".", marker, func(string) string { return "" }, os.Stdout, false)
		},
		// Prepares the parent folder instead of the application folder.
		"init-elsewhere": func(string) error {
			if msg, err := os.ReadFile(contract.InitFailFile); err == nil {
				return errors.New(strings.TrimSpace(string(msg)))
			}
			return contract.Init("..", os.Stdout)
		},
		// Never fails: the fault a user should see is swallowed.
		"init-ignoring-failure": func(string) error {
			if err := os.Remove(contract.InitFailFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			return contract.Init(".", os.Stdout)
		},
		// Prints init's object among its manifests: as if init's output
		// were taken for manifests.
		"generate-with-init-output": func(plugin string) error {
			fmt.Printf("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n  from: init\n", contract.InitObject)
			return contract.Generate(".", plugin, os.Getenv, os.Stdout)
		},
		// Removes every symlink before recording: as if they never arrived.
		"generate-without-links": func(plugin string) error {
			err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
				if err == nil && d.Type()&fs.ModeSymlink != 0 {
					return os.Remove(p)
				}
				return err
			})
			if err != nil {
				return err
			}
			return contract.Generate(".", plugin, os.Getenv, os.Stdout)
		},
		// Drops the credential variables before recording: as if
		// provideGitCreds were ignored.
		"generate-creds-withheld": func(plugin string) error {
			for _, v := range contract.CredentialVars {
				if err := os.Unsetenv(v); err != nil {
					return err
				}
			}
			return contract.Generate(".", plugin, os.Getenv, os.Stdout)
		},
		// Puts the account ASKPASS answers into GIT_USERNAME and
		// GIT_PASSWORD before recording: as if Argo CD shared credentials
		// proactively, in the environment, instead of on request.
		"generate-creds-proactive": func(plugin string) error {
			if prog := os.Getenv("GIT_ASKPASS"); prog != "" {
				for v, prompt := range map[string]string{"GIT_USERNAME": "Username: ", "GIT_PASSWORD": "Password: "} {
					answer, err := contract.Askpass(prog, prompt)
					if err != nil {
						return err
					}
					if err := os.Setenv(v, answer); err != nil {
						return err
					}
				}
			}
			return contract.Generate(".", plugin, os.Getenv, os.Stdout)
		},
		// Remembers its first failure, outside the working copy, and
		// repeats it ever after: a plugin caching its own errors, which no
		// refresh of Argo CD's clears.
		"generate-sticky-failure": func(plugin string) error {
			sum := sha256.Sum256([]byte(os.Getenv("ARGOCD_APP_NAME")))
			state := filepath.Join(os.TempDir(), "cmp-broken-sticky-"+hex.EncodeToString(sum[:8]))
			// Every run goes through the contract's flag, so its record
			// of runs counts this one too; the remembered error wins.
			failing := contract.FailingWhile(".")
			if msg, err := os.ReadFile(state); err == nil {
				return errors.New(string(msg))
			}
			if err := failing; err != nil {
				if werr := os.WriteFile(state, []byte(err.Error()), 0o600); werr != nil {
					return werr
				}
				return err
			}
			return contract.Generate(".", plugin, os.Getenv, os.Stdout)
		},
		// Renders every folder of what it was sent, not only its own: in a
		// multi-source application, the other sources' objects again.
		"generate-whole-repository": func(plugin string) error {
			root, err := contract.ReceivedRoot(".")
			if err != nil {
				return err
			}
			here, err := filepath.Abs(".")
			if err != nil {
				return err
			}
			err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				switch {
				case err != nil:
					return err
				case !d.IsDir() || p == here:
					return nil
				case d.Name() == ".git":
					return filepath.SkipDir
				}
				if err := plain.Generate(p, os.Stdout); err != nil && !errors.Is(err, plain.ErrNoFiles) {
					return err
				}
				return nil
			})
			if err != nil {
				return err
			}
			return contract.Generate(".", plugin, os.Getenv, os.Stdout)
		},
		// Makes every file 0644 before recording: as if preserveFileMode
		// were ignored.
		"generate-modes-lost": func(plugin string) error {
			err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() && !strings.HasPrefix(d.Name(), ".") {
					return os.Chmod(p, 0o644)
				}
				return err
			})
			if err != nil {
				return err
			}
			return contract.Generate(".", plugin, os.Getenv, os.Stdout)
		},
	}
}
