package conformance

import (
	"context"
	"regexp"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
)

// The SVC family: a plugin served over the network (proposal: plugins as
// services, shared/seeds 004) "would be indistinguishable from the deployment
// as a sidecar". Released Argo CD reaches it through cmp-bridge; the
// parameterized contract's checks are run again through that path, and an
// outage of the service must cost nothing.

var svcUpstream = []string{"argoproj/argo-cd#14132"}

// throughNetwork is base, run against the network-served plugin in base's role.
func throughNetwork(id string, base Check) Check {
	return Check{ID: id, Title: base.Title + ", through the network path", Area: Service, Level: Core,
		Requires: base.Requires, Needs: base.Needs, Versions: base.Versions, Roles: []Role{RoleService},
		Upstream: append(append([]string{}, svcUpstream...), base.Upstream...),
		Test:     func(ctx context.Context, s *Suite) { base.Test(ctx, s.standIn(base.Roles[0], RoleService)) }}
}

// The network variants: announcements (static, dynamic, with the current
// parameters), the environment (escaping, build variables), hostile values,
// and both ways resources leave (cascade deletion, pruning).
var (
	svcAnnouncements     = throughNetwork("SVC-001", annBoth)
	svcDynamicParameters = throughNetwork("SVC-002", annDynamicGetsParameters)
	svcEscaping          = throughNetwork("SVC-003", envEscaping)
	svcBuildEnv          = throughNetwork("SVC-004", envBuildEnv)
	svcHostile           = throughNetwork("SVC-005", secHostileValues)
	svcCascadeDelete     = throughNetwork("SVC-006", pruneCascadeDelete)
	svcPrune             = throughNetwork("SVC-007", pruneDroppedResource)
)

// pluginDown is how Argo CD says a plugin did not answer: no socket ("could
// not find cmp-server plugin", "couldn't" before v3.2, #24022), or, through
// a bridge whose service is down, a connection that closes until the
// request's deadline passes.
var pluginDown = regexp.MustCompile(`(?i)find cmp-server plugin with name|deadline ?exceeded|unavailable|connection|rst_stream|EOF`)

var svcRestart = Check{
	ID: "SVC-008", Title: "the plugin service going down costs no resource, and once it is back the next refresh succeeds",
	Needs: []dsl.Ability{dsl.AbilityPluginServices},
	Area:  Service, Level: Core, Versions: ">=2.6.0", Roles: []Role{RoleService}, Upstream: svcUpstream,
	// While the service is down, each generation waits out the deadline.
	Deadline: hangDeadline, DeadlineAfterSetUp: true,
	Test: func(ctx context.Context, s *Suite) {
		p := s.Plugin(RoleService)
		gomega.Expect(s.Env.Services).NotTo(gomega.BeNil(), "this runtime cannot restart plugin services")
		// Named (and marked, since a named plugin that declares discovery
		// must also match): with discovery alone, a plugin that does not
		// answer should be skipped, and Argo CD would render the folder
		// itself (util/app/discovery.Discover): another question, SVC-010's.
		c := s.DiscoveredBy(s.Given(ctx).NamePrefix("svc-restart").Path("prune-app").Plugin(p.FullName()), RoleService)
		synced := expectSyncedThroughPlugin(s, c).
			ExpectWithin(s.Env.Timeouts.Settle, dsl.ResourceExists("v1", "ConfigMap", "prune-drop", nil))
		before := inventory(synced)
		s.StartDeadline(ctx)
		ginkgo.DeferCleanup(restoreService, s, p.FullName())
		down := synced.When().StopPluginService(p.FullName()).Refresh(true).
			Then().Expect(dsl.NoActionError()).
			ExpectWithin(s.Env.Timeouts.Refresh, dsl.ConditionMatches("ComparisonError", pluginDown)).
			And(func(app *v1alpha1.Application) {
				observe("error shown while down: %s", shortened(dsl.ConditionMessage(app, "ComparisonError")))
			}).
			When().Sync(true).
			Then().ExpectWithin(s.Env.Timeouts.AppSynced, dsl.OperationFinished())
		expectUnchanged(down, before, "while the plugin service was down")
		back := down.When().StartPluginService(p.FullName()).Refresh(true).
			Then().Expect(dsl.NoActionError()).
			// "The next refresh": judged on the hard refresh asked once
			// the service accepted connections again.
			ExpectAnswered(s.Env.Timeouts.Refresh, dsl.NoCondition("ComparisonError")).
			ExpectWithin(s.Env.Timeouts.Refresh, dsl.SyncStatusIs("Synced"))
		expectUnchanged(back, before, "after the plugin service came back")
	},
}

// restoreService never leaves a plugin service down for the checks after
// a spec (it starts it if it is down), nor its bridge lost: the
// repo-server asks every plugin socket in turn whether it claims an
// application, and dials it without a deadline (discovery.cmpSupports,
// BlockingNewClient with context.Background in v3.6.1), so a bridge that
// gave up (a witness) would hang the discovery of every later application
// of the environment for good. A new bridge dials the service anew.
func restoreService(ctx context.Context, s *Suite, name string) {
	gomega.Expect(s.Env.Services.StartService(ctx, name)).To(gomega.Succeed(), "starting the plugin service again for the checks after this one")
	if err := s.Env.Services.DetachBridge(ctx, name); err == nil {
		gomega.Expect(s.Env.Services.AttachBridge(ctx, name)).To(gomega.Succeed(),
			"giving the plugin service a new bridge for the checks after this one")
	}
}

// SVC-010: proposal 004's use case, "plugin unavailability would not
// affect my entire repo-server". A sidecar that is gone leaves a socket
// that refuses, and discovery goes on to the next plugin; a plugin served
// over the network is reached through a bridge that accepts and then
// closes while its service is down. Every application that does not name
// its plugin is offered to every plugin in turn, so the one judged here is
// claimed by none: it must still render, as a directory. Provisional:
// v3.6.1's discovery waits for ever on a connection that closes
// (docs/decisions.md, "A plugin socket that drops connections").
var svcOutageIsolated = Check{
	ID: "SVC-010", Title: "a plugin service that is down holds up no other application: one that no plugin claims still renders, as a directory",
	Needs: []dsl.Ability{dsl.AbilityPluginServices},
	Area:  Service, Level: Provisional, Versions: ">=2.6.0", Roles: []Role{RoleService}, Upstream: svcUpstream,
	// The render that waits on the service's socket is cut by the
	// deadline: FAULT-001's, as short, since what must fit in it where
	// Argo CD does not diverge is one discovery and a directory's render.
	Deadline: faultHangDeadline,
	Test: func(ctx context.Context, s *Suite) {
		p := s.Plugin(RoleService)
		gomega.Expect(s.Env.Services).NotTo(gomega.BeNil(), "this runtime cannot stop plugin services")
		ginkgo.DeferCleanup(restoreService, s, p.FullName())
		ginkgo.By("the plugin service " + p.FullName() + " going down")
		gomega.Expect(s.Env.Services.StopService(ctx, p.FullName())).To(gomega.Succeed())
		// Unvalidated: argocd-server's validation runs the same discovery,
		// and would wait out its deadline before the application exists.
		s.Given(ctx).NamePrefix("svc-isolated").Path("contract-app").
			When().CreateAppUnvalidated().
			Then().Expect(dsl.NoActionError()).
			// A render that keeps failing fails this at once (after the
			// settle time), with Argo CD's error.
			ExpectWithin(s.Env.Timeouts.AppSynced, dsl.SourceTypeIs(v1alpha1.ApplicationSourceTypeDirectory))
	},
}

// PluginServiceLabel marks a Service as a plugin in proposal 004.
const PluginServiceLabel = "argocd.argoproj.io/plugin"

var svcNativeDiscovery = Check{
	ID: "SVC-009", Title: "a Service labelled argocd.argoproj.io/plugin: \"true\" is found and used without a bridge",
	Needs: []dsl.Ability{dsl.AbilityPluginServices},
	Area:  Service, Level: Provisional, Versions: ">=2.6.0", Roles: []Role{RoleService},
	// Provisional: proposal 004's native discovery; PR #16852 is not merged.
	// The Service leads to where the plugin runs: its pods on kind, its
	// address on this host (ExternalName) on the embedded runtime.
	Upstream: []string{"argoproj/argo-cd#14132", "argoproj/argo-cd#16852"},
	Test: func(ctx context.Context, s *Suite) {
		p := s.Plugin(RoleService)
		gomega.Expect(s.Env.Services).NotTo(gomega.BeNil(), "this runtime cannot detach a plugin's bridge")
		spec, err := s.Env.Services.PluginServiceSpec(p.FullName())
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "plugin %s is not network-served", p.FullName())
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: dsl.UniqueName("plugin"), Namespace: s.Env.ArgoCDNamespace,
				Labels: map[string]string{PluginServiceLabel: "true"}},
			Spec: spec,
		}
		_, err = s.Env.Clientset.CoreV1().Services(svc.Namespace).Create(ctx, svc, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "creating Service %s", svc.Name)
		ginkgo.DeferCleanup(func(ctx context.Context) {
			_ = s.Env.Clientset.CoreV1().Services(svc.Namespace).Delete(ctx, svc.Name, metav1.DeleteOptions{})
		})
		// Without its bridge, only the Service can lead Argo CD to the plugin.
		gomega.Expect(s.Env.Services.DetachBridge(ctx, p.FullName())).To(gomega.Succeed())
		ginkgo.DeferCleanup(func(ctx context.Context) { _ = s.Env.Services.AttachBridge(ctx, p.FullName()) })
		c := s.DiscoveredBy(s.Given(ctx).NamePrefix("svc-native").Path("prune-app").Plugin(p.FullName()), RoleService)
		expectSyncedThroughPlugin(s, c).
			ExpectWithin(s.Env.Timeouts.Settle, dsl.ResourceExists("v1", "ConfigMap", "prune-keep", nil))
	},
}

// inventory is what a spec's namespace holds that a fault must not touch.
func inventory(c *dsl.Consequences) dsl.Inventory {
	ginkgo.GinkgoHelper()
	inv, err := c.Inventory([2]string{"v1", "ConfigMap"})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return inv
}

// expectUnchanged fails when a resource was lost, recreated or added since
// before, and reports the counts either way.
func expectUnchanged(c *dsl.Consequences, before dsl.Inventory, when string) {
	ginkgo.GinkgoHelper()
	now := inventory(c)
	observe("%d ConfigMaps in the application's namespace before, %d %s", len(before), len(now), when)
	gomega.Expect(before.Diff(now)).To(gomega.BeEmpty(), "resources changed %s", when)
}
