package contract

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/pem"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

func TestObtainCredentialsNothingOffered(t *testing.T) {
	c := ObtainCredentials(func(string) string { return "" })
	if !c.Looked || c.Obtained() || len(c.Offered) > 0 || len(c.Errors) > 0 {
		t.Errorf("with no credential variables: %+v, want nothing, having looked", c)
	}
}

func TestObtainCredentialsAskpass(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "askpass")
	// Answers as argocd-git-ask-pass does: by the prompt's first word.
	write(t, prog, "#!/bin/sh\ncase \"$1\" in Username*) echo alice;; Password*) echo s3cret;; *) exit 3;; esac\n", 0o755)
	env := map[string]string{"GIT_ASKPASS": prog, "ARGOCD_GIT_ASKPASS_NONCE": "n", "ARGOCD_APP_SOURCE_REPO_URL": "https://127.0.0.1:1/app.git"}
	c := ObtainCredentials(func(k string) string { return env[k] })
	sum := sha256.Sum256([]byte("s3cret"))
	if c.Username != "alice" || c.PasswordSHA256 != hex.EncodeToString(sum[:]) || len(c.Errors) > 0 {
		t.Errorf("askpass answers: %+v", c)
	}
	if !slices.Equal(c.Offered, []string{"GIT_ASKPASS", "ARGOCD_GIT_ASKPASS_NONCE"}) {
		t.Errorf("Offered = %v", c.Offered)
	}
	if strings.Contains(c.PasswordSHA256, "s3cret") {
		t.Error("the password itself is in the record")
	}

	write(t, prog, "#!/bin/sh\necho 'no socket' >&2; exit 1\n", 0o755)
	c = ObtainCredentials(func(k string) string { return env[k] })
	if c.Obtained() || len(c.Errors) != 2 || !strings.Contains(c.Errors[0], "no socket") {
		t.Errorf("a failing askpass: %+v, want two errors carrying its message", c)
	}
}

func TestObtainCredentialsSSHKey(t *testing.T) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(t.TempDir(), "key")
	write(t, key, string(pem.EncodeToMemory(block)), 0o600)
	signer, _ := ssh.NewSignerFromKey(priv)
	want := ssh.FingerprintSHA256(signer.PublicKey())

	env := map[string]string{"GIT_SSH_COMMAND": "ssh -i " + key + " -o StrictHostKeyChecking=yes -o UserKnownHostsFile=/x"}
	if c := ObtainCredentials(func(k string) string { return env[k] }); c.SSHKey != want || len(c.Errors) > 0 {
		t.Errorf("ssh key: %+v, want fingerprint %s", c, want)
	}
	env["GIT_SSH_COMMAND"] = "ssh -o StrictHostKeyChecking=yes"
	if c := ObtainCredentials(func(k string) string { return env[k] }); c.Obtained() || len(c.Errors) != 1 {
		t.Errorf("ssh without -i: %+v, want one error and nothing obtained", c)
	}
}
