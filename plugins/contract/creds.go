package contract

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
)

// CredentialVars are the variables through which Argo CD hands a plugin the
// credentials of the repository it cloned (util/git/creds.go Environ, and
// util/askpass): with provideGitCreds unset, none may reach generate.
// ARGOCD_ASK_PASS_SOCK is not among them: it names the socket, which answers
// nothing without a nonce, and a sidecar may have it set for good.
var CredentialVars = []string{
	"GIT_ASKPASS", "ARGOCD_GIT_ASKPASS_NONCE", "GIT_SSH_COMMAND",
	"ARGOCD_BASIC_AUTH_HEADER", "ARGOCD_BEARER_AUTH_HEADER", "GIT_SSL_CERT", "GIT_SSL_KEY",
	"GIT_USERNAME", "GIT_PASSWORD",
}

// Credentials is what generate could obtain of the repository's
// credentials, the way a plugin uses them: by asking GIT_ASKPASS as git
// asks it, and by reading the key GIT_SSH_COMMAND names. Secrets are kept
// as digests only, since the record lands in the cluster.
type Credentials struct {
	// Looked says the program looked at all: a record without it comes
	// from a program that never did, and proves nothing about credentials.
	Looked bool `json:"looked"`
	// Offered names the CredentialVars set in generate's environment.
	Offered []string `json:"offered,omitempty"`
	// Username is what GIT_ASKPASS answered to git's username prompt, and
	// PasswordSHA256 the digest of its answer to the password prompt.
	Username       string `json:"username,omitempty"`
	PasswordSHA256 string `json:"passwordSHA256,omitempty"`
	// SSHKey is the SHA256 fingerprint of the private key GIT_SSH_COMMAND
	// passes with -i.
	SSHKey string `json:"sshKey,omitempty"`
	// Errors say why something offered could not be obtained.
	Errors []string `json:"errors,omitempty"`
}

// Obtained says whether generate got hold of any credential.
func (c Credentials) Obtained() bool {
	return c.Username != "" || c.PasswordSHA256 != "" || c.SSHKey != ""
}

// askpassTimeout bounds each askpass call: a socket nobody serves must not
// hang generation.
const askpassTimeout = 10 * time.Second

// ObtainCredentials tries what git would try with generate's environment.
func ObtainCredentials(getenv func(string) string) Credentials {
	c := Credentials{Looked: true}
	for _, name := range CredentialVars {
		if getenv(name) != "" {
			c.Offered = append(c.Offered, name)
		}
	}
	if prog := getenv("GIT_ASKPASS"); prog != "" {
		// git's own prompts, naming the host of the repository.
		host := getenv("ARGOCD_APP_SOURCE_REPO_URL")
		if u, err := url.Parse(host); err == nil && u.Host != "" {
			host = u.Scheme + "://" + u.Host
		}
		if user, err := Askpass(prog, fmt.Sprintf("Username for '%s': ", host)); err != nil {
			c.Errors = append(c.Errors, "askpass username: "+err.Error())
		} else {
			c.Username = user
		}
		if pw, err := Askpass(prog, fmt.Sprintf("Password for '%s': ", host)); err != nil {
			c.Errors = append(c.Errors, "askpass password: "+err.Error())
		} else if pw != "" {
			sum := sha256.Sum256([]byte(pw))
			c.PasswordSHA256 = hex.EncodeToString(sum[:])
		}
	}
	if cmd := getenv("GIT_SSH_COMMAND"); cmd != "" {
		fp, err := sshKeyFingerprint(cmd)
		if err != nil {
			c.Errors = append(c.Errors, "ssh key: "+err.Error())
		}
		c.SSHKey = fp
	}
	return c
}

// Askpass runs prog with prompt as git does, and returns its first line.
func Askpass(prog, prompt string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), askpassTimeout)
	defer cancel()
	var stderr strings.Builder
	cmd := exec.CommandContext(ctx, prog, prompt)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s: %w: %s", prog, err, strings.TrimSpace(stderr.String()))
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return line, nil
}

// sshKeyFingerprint reads the key an ssh command line passes with -i.
func sshKeyFingerprint(command string) (string, error) {
	fields := strings.Fields(command)
	for i, f := range fields {
		if f != "-i" || i+1 == len(fields) {
			continue
		}
		data, err := os.ReadFile(fields[i+1])
		if err != nil {
			return "", err
		}
		signer, err := ssh.ParsePrivateKey(data)
		if err != nil {
			return "", fmt.Errorf("%s: %w", fields[i+1], err)
		}
		return ssh.FingerprintSHA256(signer.PublicKey()), nil
	}
	return "", fmt.Errorf("no -i KEY in %q", command)
}
