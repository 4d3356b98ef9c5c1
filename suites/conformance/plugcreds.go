package conformance

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
)

// A plugin that declares provideGitCreds is handed the credentials of the
// repository it renders (CRED-001..003 prove Argo CD hands them over). What
// the subject does with them is its own doing, and the one thing anyone can
// see of it is where they end up: in nothing it generates, announces or
// says. What it fetches with them is its author's business and no check's.

var plugCredentialsKept = Check{
	ID: "PLUG-013", Title: "with provideGitCreds, the repository's credentials appear in nothing the plugin generates, announces or reports",
	Needs: []dsl.Ability{dsl.AbilityGitCredentials},
	Area:  Plugin, Level: Core, Versions: ">=2.9.0", Roles: []Role{RoleSubject}, Requires: []Feature{ProvideGitCreds},
	Upstream: []string{"argoproj/argo-cd#15107"},
	Test: func(ctx context.Context, s *Suite) {
		id := s.Env.Git.Identity()
		secrets := map[string]string{
			"the password":                  id.Password,
			"the basic auth header":         base64.StdEncoding.EncodeToString([]byte(id.Username + ":" + id.Password)),
			"the SSH private key":           sshKeyBody(string(id.ClientKeyPEM)),
			"the SSH private key, as a PEM": string(id.ClientKeyPEM),
		}
		for _, sm := range s.Certification().Samples {
			ginkgo.By("sample " + sm.Name)
			// Served as private, whatever the sample says: a plugin that asks
			// for credentials is one whose repositories need them.
			if sm.GitAccess() == dsl.GitPlain {
				sm.Access = "https"
			}
			then := sampleSynced(ctx, s, sm, "plug-creds")
			seen := credentialTexts(then)
			var leaks []string
			for _, what := range slices.Sorted(maps.Keys(secrets)) {
				if where := leakedIn(seen, secrets[what]); where != "" {
					leaks = append(leaks, fmt.Sprintf("%s, in %s", what, where))
				}
			}
			observe("sample %s (access %s): searched %d texts for the repository's credentials", sm.Name, sm.GitAccess(), len(seen))
			gomega.Expect(leaks).To(gomega.BeEmpty(), "sample %s: the plugin (provideGitCreds: true) put the repository's credentials where anyone who can read the application or its namespace sees them", sm.Name)
		}
	},
}

// credentialTexts are what a plugin's output reaches, by where: the
// manifests Argo CD generates (it masks Secrets' values in them, so the live
// objects are read as well), every object the application made, its
// conditions and operation message, and the parameter announcements.
func credentialTexts(then *dsl.Consequences) map[string]string {
	ginkgo.GinkgoHelper()
	out := map[string]string{}
	manifests, err := then.Manifests(true)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "generating the manifests")
	for i, m := range manifests {
		out[fmt.Sprintf("generated manifest %d", i+1)] = m
	}
	var messages []string
	then.And(func(app *v1alpha1.Application) {
		for _, r := range app.Status.Resources {
			live, err := then.LiveObject(r)
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "reading %s %s/%s", r.Kind, r.Namespace, r.Name)
			b, err := json.Marshal(live.Object)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			out["the live "+r.Kind+" "+r.Name] = string(b)
		}
		for _, c := range app.Status.Conditions {
			messages = append(messages, c.Message)
		}
		if op := app.Status.OperationState; op != nil {
			messages = append(messages, op.Message)
		}
	})
	out["the application's conditions and operation"] = strings.Join(messages, "\n")
	anns, err := then.Announcements()
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "asking for the parameter announcements")
	b, err := json.Marshal(anns)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	out["the parameter announcements"] = string(b)
	return out
}

// leakedIn names the first text holding secret as it is, or base64-encoded
// at any offset of a longer encoded text (a Secret's data, a docker config);
// "" when none does.
func leakedIn(texts map[string]string, secret string) string {
	if secret == "" {
		return ""
	}
	forms := append([]string{secret}, base64Cores(secret)...)
	for _, where := range slices.Sorted(maps.Keys(texts)) {
		for _, f := range forms {
			if strings.Contains(texts[where], f) {
				return where
			}
		}
	}
	return ""
}

// base64Cores are the parts of secret's base64 encodings (standard and URL
// alphabets, padded or not) that do not depend on what surrounds it: one per
// offset of secret within a 3-byte group. Shorter than 8 characters they
// would match by chance, and are left out.
func base64Cores(secret string) []string {
	var out []string
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for k := range 3 {
			full := enc.EncodeToString(append(make([]byte, k), secret...))
			from, to := 4*((k+2)/3), 4*((k+len(secret))/3)
			if to-from >= 8 {
				out = append(out, full[from:to])
			}
		}
	}
	return out
}

// sshKeyBody is the longest line of a PEM key's body: found anywhere, the
// key went with it.
func sshKeyBody(pem string) string {
	best := ""
	for _, line := range strings.Split(pem, "\n") {
		if !strings.HasPrefix(line, "-----") && len(line) > len(best) {
			best = line
		}
	}
	return best
}
