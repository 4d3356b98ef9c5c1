package conformance

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path"
	"slices"
	"strings"

	applicationpkg "github.com/argoproj/argo-cd/v3/pkg/apiclient/application"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/fixtures/extension"
)

// EXT-002: the actions of action_test.yaml, as a user reaches them: the
// application's resource actions offered by discovery (with their disabled
// flags), and an action run through Argo CD's API changing the live object
// as the test's expected object says. argocd-server runs both without the
// Lua open libraries, whatever argocd-cm says.
var extActions = Check{
	ID:    "EXT-002",
	Title: "an extension's actions are offered as its discovery tests say, and each action run through Argo CD's API leaves the live object its test expects",
	Area:  Extensions, Level: Core, Versions: ">=2.1.0", Roles: []Role{RoleExtension},
	Needs: []dsl.Ability{dsl.AbilityExtensions},
	NothingToJudge: withoutCases(func(k extension.Kind) int { return len(k.DiscoveryTests) + len(k.ActionTests) },
		"the extension has no action test (actions/action_test.yaml beside actions/discovery.lua)"),
	// Custom actions from argocd-cm (#6909's per-kind keys); argocd-server
	// runs them, never the controller.
	Upstream: []string{"argoproj/argo-cd#6909"},
	Test: func(ctx context.Context, s *Suite) {
		ext := s.Extension()
		installed(ctx, s, ext)
		var discoveries, runs []actionCase
		for _, k := range ext.Kinds {
			for i, tc := range k.DiscoveryTests {
				name := fmt.Sprintf("%s/actions/action_test.yaml, discovery test %d (%s)", k.Dir, i+1, tc.InputPath)
				discoveries = append(discoveries, actionCase{liveCase: startCase(ctx, s, ext, k, path.Join("actions", tc.InputPath), name), offers: tc.Result})
			}
			for i, tc := range k.ActionTests {
				name := fmt.Sprintf("%s/actions/action_test.yaml, action test %d (%s on %s)", k.Dir, i+1, tc.Action, tc.InputPath)
				runs = append(runs, actionCase{liveCase: startCase(ctx, s, ext, k, path.Join("actions", tc.InputPath), name), test: tc})
			}
		}
		for _, c := range discoveries {
			c.discover(ctx, s)
		}
		for _, c := range runs {
			c.run(ctx, s, ext)
		}
	},
}

// actionCase is a discovery test (offers) or an action test under way.
type actionCase struct {
	liveCase
	offers []extension.Action
	test   extension.ActionTest
	// mustRun (EXT-003): a test expects the action to run on this object.
	mustRun bool
}

// resource is the request naming the case's live object.
func (c actionCase) resource() *applicationpkg.ApplicationResourceRequest {
	gvk := c.obj.GroupVersionKind()
	name, ns, group, version, kind := c.obj.GetName(), c.app, gvk.Group, gvk.Version, gvk.Kind
	app := c.app
	return &applicationpkg.ApplicationResourceRequest{Name: &app, Namespace: &ns, ResourceName: &name, Group: &group, Version: &version, Kind: &kind}
}

// discover expects the actions Argo CD offers for the live object to be the
// test's, each with its disabled flag.
func (c actionCase) discover(ctx context.Context, s *Suite) {
	ginkgo.GinkgoHelper()
	ginkgo.By("actions offered: " + c.name)
	c.live(s)
	var offered map[string]bool
	gomega.Eventually(ctx, func() error {
		// The resource must be in the application's tree first.
		resp, err := s.Env.Apps.ListResourceActions(ctx, c.resource())
		if err != nil {
			return err
		}
		offered = map[string]bool{}
		for _, a := range resp.Actions {
			offered[a.Name] = a.Disabled
		}
		return nil
	}).WithTimeout(s.Env.Timeouts.Refresh).WithPolling(s.Env.Timeouts.Poll*5).Should(gomega.Succeed(), "%s: listing the resource's actions", c.name)
	want := map[string]bool{}
	for _, a := range c.offers {
		want[a.Name] = a.Disabled
	}
	observe("%s: offered %s", c.name, actionList(offered))
	gomega.Expect(offered).To(gomega.Equal(want), "%s: Argo CD offers %s, the test expects %s", c.name, actionList(offered), actionList(want))
}

// inTree waits until the application's resource tree holds the case's object
// at version: argocd-server finds a resource for an action in that tree, and
// the controller writes it after the sync has succeeded, not with it.
func (c actionCase) inTree(ctx context.Context, s *Suite, version string) {
	ginkgo.GinkgoHelper()
	gomega.Eventually(ctx, func() error {
		_, err := c.node(ctx, s, version)
		return err
	}).WithTimeout(s.Env.Timeouts.Refresh).WithPolling(s.Env.Timeouts.Poll * 5).Should(gomega.Succeed())
}

// call runs the test's action, with its parameters, through apps (the
// admin's API, or another user's).
func (c actionCase) call(ctx context.Context, apps applicationpkg.ApplicationServiceClient) error {
	return c.callIn(ctx, apps, "")
}

// callIn is call naming the application's project ("": none), which makes
// Argo CD enforce RBAC before it looks the application up.
func (c actionCase) callIn(ctx context.Context, apps applicationpkg.ApplicationServiceClient, project string) error {
	r, action := c.resource(), c.test.Action
	req := &applicationpkg.ResourceActionRunRequestV2{Name: r.Name, Namespace: r.Namespace, ResourceName: r.ResourceName, Group: r.Group, Version: r.Version, Kind: r.Kind, Action: &action}
	var proj *string
	if project != "" {
		proj = &project
	}
	req.Project = proj
	for _, k := range slices.Sorted(maps.Keys(c.test.Parameters)) {
		name, value := k, c.test.Parameters[k]
		req.ResourceActionParameters = append(req.ResourceActionParameters, &applicationpkg.ResourceActionParameters{Name: &name, Value: &value})
	}
	_, err := apps.RunResourceActionV2(ctx, req)
	if status.Code(err) == codes.Unimplemented && len(req.ResourceActionParameters) == 0 {
		// Before the V2 call (parameters), the first one.
		_, err = apps.RunResourceAction(ctx, &applicationpkg.ResourceActionRunRequest{Name: r.Name, Namespace: r.Namespace, //nolint:staticcheck // the only call older versions have
			ResourceName: r.ResourceName, Group: r.Group, Version: r.Version, Kind: r.Kind, Action: &action, Project: proj})
	}
	return err
}

// actionList is name (disabled) ..., in name order.
func actionList(actions map[string]bool) string {
	var out []string
	for _, n := range slices.Sorted(maps.Keys(actions)) {
		if actions[n] {
			n += " (disabled)"
		}
		out = append(out, n)
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// run runs the test's action through the API, as the UI does, and expects
// its error, or the live object to hold every field of the expected object.
func (c actionCase) run(ctx context.Context, s *Suite, ext *extension.Extension) {
	ginkgo.GinkgoHelper()
	ginkgo.By("action: " + c.name)
	c.inTree(ctx, s, c.live(s))
	err := c.call(ctx, s.Env.Apps)
	if c.test.ExpectedErrorMessage != "" {
		gomega.Expect(err).To(gomega.MatchError(gomega.ContainSubstring(c.test.ExpectedErrorMessage)), "%s: the action's error", c.name)
		return
	}
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s: running the action through Argo CD's API", c.name)
	root, err := os.OpenRoot(ext.Dir)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	defer root.Close()
	data, err := root.ReadFile(path.Join(c.kind.Dir, "actions", c.test.ExpectedOutputPath))
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	want := map[string]any{}
	gomega.Expect(yaml.Unmarshal(data, &want)).To(gomega.Succeed(), "%s: %s is not an object", c.name, c.test.ExpectedOutputPath)
	want = normalised(&unstructured.Unstructured{Object: want}).Object
	var diff string
	gomega.Eventually(ctx, func() string {
		live, err := c.synced.Live(c.obj.GetAPIVersion(), c.obj.GetKind(), c.obj.GetName())
		if err != nil {
			diff = err.Error()
		} else {
			diff = extension.Subset(want, live.Object)
		}
		return diff
	}).WithTimeout(s.Env.Timeouts.Settle).WithPolling(s.Env.Timeouts.Poll).Should(gomega.BeEmpty(), func() string {
		return fmt.Sprintf("%s: after the action, the live object's %s (%s)", c.name, diff, c.test.ExpectedOutputPath)
	})
	observe("%s: the live object holds %s", c.name, c.test.ExpectedOutputPath)
}
