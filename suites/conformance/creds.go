package conformance

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"golang.org/x/crypto/ssh"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/plugins/contract"
)

// The CRED family: the repository's git credentials and a plugin, as the
// docs' "Provide Git Credentials" describes them. With provideGitCreds the
// plugin obtains, through git's ASKPASS, the credentials the repo-server
// cloned with, and only when it asks for them; without it, nothing. The
// repositories sit behind the git server's credentialed front doors (HTTPS
// with basic auth under the run's own CA, SSH with the run's key), and the
// contract plugins record what they could obtain (plugins/contract/creds.go)
// as digests. Argo CD's TestCustomToolWithGitCreds, …GitCredsTemplate,
// …SSHGitCreds and …SSHGitCredsDisabled are the floor.

// credsRecord syncs the contract application, reached as access says, through
// role's plugin and returns what the plugin obtained.
func credsRecord(ctx context.Context, s *Suite, prefix string, role Role, access dsl.GitAccess) contract.Credentials {
	c := s.DiscoveredBy(s.Given(ctx).NamePrefix(prefix).Path("contract-app").Access(access), role)
	cons, rec := renderedBy(s, c, role)
	// Upstream asserts the sync too: the controller's generation gets the
	// credentials as the API's does.
	cons.When().Sync(false).Then().ExpectWithin(s.Env.Timeouts.AppSynced, dsl.OperationPhaseIs("Succeeded"))
	gomega.Expect(rec.Credentials.Looked).To(gomega.BeTrue(), "%s: the plugin's record says nothing of credentials: its program does not look for them (an older cmp-contract?)", access)
	return rec.Credentials
}

// proactive are the variables that would carry a credential itself into the
// plugin's environment, where ASKPASS is meant to hand it over only on
// request ("credentials are not proactively shared"); forceBasicAuth, which
// sends ARGOCD_BASIC_AUTH_HEADER, is off in these repositories.
var proactive = []string{"GIT_USERNAME", "GIT_PASSWORD", "ARGOCD_BASIC_AUTH_HEADER", "ARGOCD_BEARER_AUTH_HEADER"}

// expectAskpassAccount asserts that the plugin obtained exactly the HTTPS
// account, and only through ASKPASS.
func expectAskpassAccount(s *Suite, got contract.Credentials, access dsl.GitAccess) {
	id := s.Env.Git.Identity()
	sum := sha256.Sum256([]byte(id.Password))
	gomega.Expect(got.Username).NotTo(gomega.BeEmpty(),
		"%s: the plugin (provideGitCreds: true) obtained no username through GIT_ASKPASS; offered %v, errors %v", access, got.Offered, got.Errors)
	gomega.Expect(got.Username).To(gomega.Equal(id.Username), "%s: GIT_ASKPASS answered username %q, not the repository's", access, got.Username)
	gomega.Expect(got.PasswordSHA256).To(gomega.Equal(hex.EncodeToString(sum[:])),
		"%s: GIT_ASKPASS answered a password that is not the repository's (sha256 %q)", access, got.PasswordSHA256)
	var leaked []string
	for _, v := range proactive {
		if slices.Contains(got.Offered, v) {
			leaked = append(leaked, v)
		}
	}
	gomega.Expect(leaked).To(gomega.BeEmpty(), "%s: credentials were shared proactively, in the plugin's environment, not only through ASKPASS", access)
}

var credsHTTPS = Check{
	ID: "CRED-001", Title: "with provideGitCreds, the plugin obtains the repository's HTTPS credentials through GIT_ASKPASS, and only through it",
	Needs: []dsl.Ability{dsl.AbilityGitCredentials},
	Area:  Credentials, Level: Core, Versions: ">=2.9.0", Requires: []Feature{Discovery, ProvideGitCreds}, Roles: []Role{RoleGitCreds},
	Upstream: []string{"argoproj/argo-cd#8820", "argoproj/argo-cd#15107"},
	Test: func(ctx context.Context, s *Suite) {
		got := credsRecord(ctx, s, "creds-https", RoleGitCreds, dsl.GitHTTPSRepository)
		expectAskpassAccount(s, got, dsl.GitHTTPSRepository)
	},
}

var credsTemplate = Check{
	ID: "CRED-002", Title: "with provideGitCreds, the plugin obtains the credentials of a matching credential template through GIT_ASKPASS",
	Needs: []dsl.Ability{dsl.AbilityGitCredentials},
	Area:  Credentials, Level: Core, Versions: ">=2.9.0", Requires: []Feature{Discovery, ProvideGitCreds}, Roles: []Role{RoleGitCreds},
	Upstream: []string{"argoproj/argo-cd#15107"},
	Test: func(ctx context.Context, s *Suite) {
		got := credsRecord(ctx, s, "creds-template", RoleGitCreds, dsl.GitHTTPSTemplate)
		expectAskpassAccount(s, got, dsl.GitHTTPSTemplate)
	},
}

var credsSSH = Check{
	ID: "CRED-003", Title: "with provideGitCreds, the plugin can read the repository's SSH private key, named by GIT_SSH_COMMAND",
	Needs: []dsl.Ability{dsl.AbilityGitCredentials},
	Area:  Credentials, Level: Core, Versions: ">=2.9.0", Requires: []Feature{Discovery, ProvideGitCreds}, Roles: []Role{RoleGitCreds},
	Upstream: []string{"argoproj/argo-cd#15107"},
	Test: func(ctx context.Context, s *Suite) {
		if p := s.Plugin(RoleGitCreds); p.Image != "" {
			// Not a verdict on Argo CD: the key file is in the
			// repo-server's /dev/shm, which a sidecar reads only where the
			// runtime shares it as a pod does (podshm).
			if why := s.Env.Lacks(dsl.AbilityPodShm); why != "" {
				ginkgo.Skip(fmt.Sprintf("plugin %s runs from an image: %s (docs/decisions.md, \"Credentials in a sidecar\")", p.FullName(), why))
			}
		}
		got := credsRecord(ctx, s, "creds-ssh", RoleGitCreds, dsl.GitSSHRepository)
		want := ssh.FingerprintSHA256(s.Env.Git.Identity().ClientKey)
		gomega.Expect(got.SSHKey).NotTo(gomega.BeEmpty(),
			"%s: the plugin (provideGitCreds: true) obtained no SSH key through GIT_SSH_COMMAND; offered %v, errors %v", dsl.GitSSHRepository, got.Offered, got.Errors)
		gomega.Expect(got.SSHKey).To(gomega.Equal(want), "%s: GIT_SSH_COMMAND names a key that is not the repository's", dsl.GitSSHRepository)
	},
}

var credsWithheld = Check{
	ID: "CRED-004", Title: "without provideGitCreds, a plugin obtains none of the repository's credentials (HTTPS account, SSH key)",
	Needs: []dsl.Ability{dsl.AbilityGitCredentials},
	Area:  Security, Level: Core, Versions: ">=2.4.0", Requires: []Feature{Discovery}, Roles: []Role{RoleFiles},
	Upstream: []string{"argoproj/argo-cd#8820"},
	Test: func(ctx context.Context, s *Suite) {
		var problems []string
		for _, access := range []dsl.GitAccess{dsl.GitHTTPSRepository, dsl.GitSSHRepository} {
			got := credsRecord(ctx, s, "creds-withheld", RoleFiles, access)
			if len(got.Offered) > 0 || got.Obtained() {
				problems = append(problems, fmt.Sprintf("%s: credentials reached a plugin that does not ask for them (offered %v; obtained username %q, a password: %t, SSH key %q)",
					access, got.Offered, got.Username, got.PasswordSHA256 != "", got.SSHKey))
			}
		}
		gomega.Expect(problems).To(gomega.BeEmpty(), "a plugin without provideGitCreds")
	},
}
