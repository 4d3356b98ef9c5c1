package conformance

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	accountpkg "github.com/argoproj/argo-cd/v3/pkg/apiclient/account"
	applicationpkg "github.com/argoproj/argo-cd/v3/pkg/apiclient/application"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/fixtures/extension"
)

// EXT-003: the seed's security requirement ("any write operations must be
// configured as Lua scripts ... so that Argo CD RBAC can be enforced when a
// user invokes an action"), as Argo CD's RBAC documents it: running an
// action is the permission action/<group>/<Kind>/<action> on applications.
// The user is a local account with API tokens only (argocd.ActorAccount);
// its policy is written by the check, so nothing but that policy decides.
var extRBAC = Check{
	ID:    "EXT-003",
	Title: "each action of an extension is refused to a user without the applications permission action/<group>/<Kind>/<action>, and not refused to a user granted it",
	Area:  Extensions, Level: Core, Versions: ">=2.6.0", Roles: []Role{RoleExtension},
	Needs:          []dsl.Ability{dsl.AbilityExtensions},
	NothingToJudge: withoutCases(func(k extension.Kind) int { return len(rbacStarts(k)) }, "the extension has no action (actions/<name>/action.lua) of a kind its tests give an object of"),
	Test: func(ctx context.Context, s *Suite) {
		ext := s.Extension()
		installed(ctx, s, ext)
		var cases []actionCase
		for _, k := range ext.Kinds {
			for _, st := range rbacStarts(k) {
				name := fmt.Sprintf("%s, %s on %s", k.Dir, st.test.Action, st.rel)
				cases = append(cases, actionCase{liveCase: startCase(ctx, s, ext, k, st.rel, name), test: st.test, mustRun: st.mustRun})
			}
		}
		user := actor(ctx, s)
		// A role of this spec, granted get on the applications only: enough
		// to see them, not to run anything.
		role := "role:" + dsl.UniqueName("cmpc-ext-rbac")
		policy := []string{fmt.Sprintf("g, %s, %s", argocd.ActorAccount, role)}
		for _, c := range cases {
			policy = append(policy, fmt.Sprintf("p, %s, applications, get, */%s, allow", role, c.app))
		}
		user.grant(ctx, s, role, cases[0].kind, policy)
		for _, c := range cases {
			ginkgo.By("refused: " + c.name)
			c.inTree(ctx, s, c.live(s))
			err := c.call(ctx, user.apps)
			gomega.Expect(err).To(gomega.HaveOccurred(), "%s: Argo CD ran %s for %s, which the check granted only get on the application, not %s",
				c.name, c.test.Action, argocd.ActorAccount, c.permission())
			gomega.Expect(status.Code(err)).To(gomega.Equal(codes.PermissionDenied), "%s: the action failed for %s, but not as refused (want PermissionDenied): %v",
				c.name, argocd.ActorAccount, err)
			observe("%s: refused to %s without %s: %s", c.name, argocd.ActorAccount, c.permission(), status.Convert(err).Message())
		}
		var grants []string
		for _, c := range cases {
			grants = append(grants, fmt.Sprintf("p, %s, applications, %s, */%s, allow", role, c.permission(), c.app))
		}
		user.grant(ctx, s, role, cases[0].kind, grants)
		for _, c := range cases {
			ginkgo.By("granted: " + c.name)
			err := c.call(ctx, user.apps)
			gomega.Expect(status.Code(err)).NotTo(gomega.Equal(codes.PermissionDenied), "%s: %s, granted %s on the application, was refused: %v", c.name, argocd.ActorAccount, c.permission(), err)
			if c.mustRun {
				gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s: %s, granted %s on the application, could not run it (its test expects it to run)", c.name, argocd.ActorAccount, c.permission())
			}
			observe("%s: not refused to %s with %s (%v)", c.name, argocd.ActorAccount, c.permission(), cmp.Or(grpcMessage(err), "it ran"))
		}
	},
}

// rbacStart is where EXT-003 runs one action: an object of the kind from
// the extension's tests, and whether a test expects the action to run on it.
type rbacStart struct {
	rel     string // the object, relative to the kind's folder
	test    extension.ActionTest
	mustRun bool
}

// rbacStarts are the kind's actions, each on the object of a test of it
// that expects it to run, else on the first object the kind's tests give
// (an action test's, a discovery test's, a health test's): an action
// without tests of its own is still an action a user can be refused.
func rbacStarts(k extension.Kind) []rbacStart {
	any := firstObject(k)
	var out []rbacStart
	for _, name := range slices.Sorted(maps.Keys(k.Actions)) {
		i := slices.IndexFunc(k.ActionTests, func(tc extension.ActionTest) bool { return tc.Action == name && tc.ExpectedErrorMessage == "" })
		switch {
		case i >= 0:
			out = append(out, rbacStart{rel: path.Join("actions", k.ActionTests[i].InputPath), test: k.ActionTests[i], mustRun: true})
		case any != "":
			out = append(out, rbacStart{rel: any, test: extension.ActionTest{Action: name}})
		}
	}
	return out
}

// firstObject is the first object the kind's tests give ("": none).
func firstObject(k extension.Kind) string {
	switch {
	case len(k.ActionTests) > 0:
		return path.Join("actions", k.ActionTests[0].InputPath)
	case len(k.DiscoveryTests) > 0:
		return path.Join("actions", k.DiscoveryTests[0].InputPath)
	case len(k.HealthTests) > 0:
		return k.HealthTests[0].InputPath
	}
	return ""
}

// grpcMessage is err's message, "" for none.
func grpcMessage(err error) string {
	if err == nil {
		return ""
	}
	return status.Convert(err).Message()
}

// permission is what Argo CD's RBAC calls running the case's action.
func (c actionCase) permission() string {
	return fmt.Sprintf("action/%s/%s/%s", c.kind.Group, c.kind.Kind, c.test.Action)
}

// actingUser is argocd.ActorAccount with a token of this spec, and the
// application API as its bearer.
type actingUser struct {
	apps applicationpkg.ApplicationServiceClient
}

// actor issues a token of argocd.ActorAccount (as admin, through the account
// API) and opens the application API with it; both go when the spec ends.
func actor(ctx context.Context, s *Suite) actingUser {
	ginkgo.GinkgoHelper()
	gomega.Expect(s.Env.Accounts).NotTo(gomega.BeNil(), "this environment gives no account API")
	name, id := argocd.ActorAccount, dsl.UniqueName("cmpc")
	tok, err := s.Env.Accounts.CreateToken(ctx, &accountpkg.CreateTokenRequest{Name: name, Id: id, ExpiresIn: 3600})
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "issuing a token of account %s (argocd-cm accounts.%s: apiKey, set when Argo CD is installed)", name, name)
	ginkgo.DeferCleanup(func(ctx context.Context) {
		// Tidying up, not a verdict: the token expires within the hour.
		if _, err := s.Env.Accounts.DeleteToken(ctx, &accountpkg.DeleteTokenRequest{Name: name, Id: id}); err != nil {
			observe("cleanup: deleting the token %s of account %s: %v", id, name, err)
		}
	})
	apps, conn, err := s.Env.AppsAs(tok.Token)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(conn.Close)
	return actingUser{apps: apps}
}

// grant appends lines to argocd-rbac-cm's policy.csv (taken out again when
// the spec ends) and waits until argocd-server enforces them. The same
// update grants a probe: an action of the kind, on an application that
// does not exist. Argo CD answers it NotFound only to a user allowed to run
// it (PermissionDenied to the others, so as not to tell them the
// application does not exist), and no built-in role but admin grants
// actions, so a NotFound says this update is loaded even where the policy
// already lets every user get every application (role:readonly).
func (u actingUser) grant(ctx context.Context, s *Suite, role string, k extension.Kind, lines []string) {
	ginkgo.GinkgoHelper()
	absent, action := dsl.UniqueName("cmpc-absent"), dsl.UniqueName("cmpc-probe")
	lines = append(slices.Clone(lines), fmt.Sprintf("p, %s, applications, action/%s/%s/%s, default/%s, allow", role, k.Group, k.Kind, action, absent))
	edit := func(add bool) func(map[string]string) {
		return func(data map[string]string) {
			kept := slices.DeleteFunc(strings.Split(data["policy.csv"], "\n"), func(l string) bool { return slices.Contains(lines, l) })
			if add {
				kept = append(kept, lines...)
			}
			data["policy.csv"] = strings.TrimLeft(strings.Join(kept, "\n"), "\n")
		}
	}
	gomega.Expect(updateRBAC(ctx, s.Env, edit(true))).To(gomega.Succeed(), "granting %s in %s", role, RBACConfigMap)
	ginkgo.DeferCleanup(func(ctx context.Context) {
		// Tidying up, not a verdict: what is left grants only this spec's
		// role, on this spec's applications.
		if err := updateRBAC(ctx, s.Env, edit(false)); err != nil {
			observe("cleanup: revoking %s in %s: %v", role, RBACConfigMap, err)
		}
	})
	project, version := "default", "v1"
	probe := actionCase{liveCase: liveCase{kind: k, app: absent, obj: &unstructured.Unstructured{}}, test: extension.ActionTest{Action: action}}
	probe.obj.SetName(absent)
	probe.obj.SetAPIVersion(path.Join(k.Group, version))
	probe.obj.SetKind(k.Kind)
	var last error
	gomega.Eventually(ctx, func() error {
		last = probe.callIn(ctx, u.apps, project)
		if status.Code(last) == codes.NotFound {
			return nil
		}
		// PermissionDenied or Unauthenticated: the policy, or the token, not
		// yet loaded; anything else, a server busy for a moment.
		return last
	}).WithTimeout(s.Env.Timeouts.Refresh).WithPolling(s.Env.Timeouts.Poll).Should(gomega.Succeed(), func() string {
		return fmt.Sprintf("argocd-server did not enforce %s's new policy within %s (the probe on the absent application %s last answered: %v)", role, s.Env.Timeouts.Refresh, absent, last)
	})
}
