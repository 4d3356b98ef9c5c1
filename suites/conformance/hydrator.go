package conformance

import (
	"context"
	"fmt"
	"path"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/fixtures/kube"
	"github.com/cmp-conformance/cmp-conformance/plugins/sidecar"
)

// HYDRATE-001: the source hydrator with a plugin dry source (the docs'
// "Config Management Plugins" under Source Hydrator, 3.3+; upstream's
// TestHydratorWithPlugin). Argo CD renders the dry source through the
// plugin, its commit server pushes the result to syncSource.path on the
// sync branch as manifest.yaml, and the application syncs that commit.
// Each step is read where it lands: the branch on the run's git server,
// the file in it, the revision the application synced, the live object.
// The plugin is the parameterized one, which records the environment it
// ran with; the mark in the dry source's inline env must reach both the
// committed manifests and the cluster.

// hydratorTakesUp bounds the controller's taking up of a new application's
// dry source (HydrationTakenUp): a status write before any render, within
// the reference's whole check (about 4 s) on v3.6.1 here. A third of the
// runtime's refresh bound (20 s of the embedded runtime's 60) leaves a
// slow machine five times that; a controller whose hydrator is off is
// told then, not after the whole hydration's bound (AppSynced, 90 s).
func hydratorTakesUp(t dsl.Timeouts) time.Duration { return t.Refresh / 3 }

// hydratedBranch and hydratedPath are where the check has manifests
// written, in the spec's own repository.
const (
	hydratedBranch = "env/hydrated"
	hydratedPath   = "hydrated"
)

var hydratePlugin = Check{
	ID:    "HYDRATE-001",
	Title: "a plugin dry source is hydrated: the plugin's output for the dry commit, rendered with the dry source's inline plugin env, is pushed to syncSource.path on the sync branch, and the application syncs that commit",
	Area:  Hydrator, Level: Core, Versions: ">=3.3.0", Requires: []Feature{Discovery}, Roles: []Role{RoleParameterized},
	Test: func(ctx context.Context, s *Suite) {
		mark := dsl.UniqueName("hydrate")
		c := s.DiscoveredBy(s.Given(ctx).NamePrefix("hydrate").Path("params-app"), RoleParameterized).
			PluginEnv(map[string]string{"HYDRATE_MARK": mark}).
			Hydrate(hydratedBranch, hydratedPath)
		cons := c.When().CreateApp().Refresh(false).Then().
			Expect(dsl.NoActionError()).
			ExpectWithin(hydratorTakesUp(s.Env.Timeouts), dsl.HydrationTakenUp()).
			ExpectWithin(s.Env.Timeouts.AppSynced, dsl.Hydrated())
		head, ok, err := s.Env.Git.Branch(ctx, c.Name(), hydratedBranch)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(ok).To(gomega.BeTrue(), "the hydrator reported dry commit %s hydrated, but the sync branch %s is not on the git server", c.Revision(), hydratedBranch)
		observeHydratedSHA(cons, head)
		file := path.Join(hydratedPath, "manifest.yaml")
		data, err := s.Env.Git.ReadFile(ctx, c.Name(), head, file)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the hydrated commit has no %s", file)
		committed, err := recordedIn(data)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the hydrated manifests (%s at %s) do not hold the plugin's output", file, head)
		gomega.Expect(committed["ARGOCD_ENV_HYDRATE_MARK"]).To(gomega.Equal(mark),
			"the hydrated manifests were not rendered with the dry source's inline plugin env: the plugin recorded ARGOCD_ENV_HYDRATE_MARK %q", committed["ARGOCD_ENV_HYDRATE_MARK"])

		cons.Expect(dsl.SyncStatusIs(v1alpha1.SyncStatusCodeOutOfSync)).
			When().Sync(false).Then().
			ExpectWithin(s.Env.Timeouts.AppSynced, dsl.OperationPhaseIs("Succeeded")).
			ExpectWithin(s.Env.Timeouts.AppSynced, dsl.SyncStatusIs(v1alpha1.SyncStatusCodeSynced))
		app, err := cons.App()
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(app.Status.Sync.Revision).To(gomega.Equal(head), "the application synced revision %s, not the hydrated commit %s at the head of the sync branch", app.Status.Sync.Revision, head)
		live, err := readReceived(ctx, s.Env, c)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(live.Env["ARGOCD_ENV_HYDRATE_MARK"]).To(gomega.Equal(mark), "the live ConfigMap %s does not carry the hydrated output's mark", sidecar.ReceivedConfigMap)
	},
}

// observeHydratedSHA records what the application's status says of the
// hydrated commit beside the branch's head: the status is read, never
// judged (v3.6.1 was seen to show the SHA set, then empty).
func observeHydratedSHA(cons *dsl.Consequences, head string) {
	app, err := cons.App()
	if err != nil {
		observe("reading the application's hydrator status: %v", err)
		return
	}
	st := app.Status.SourceHydrator
	current, last := "", ""
	if st.CurrentOperation != nil {
		current = st.CurrentOperation.HydratedSHA
	}
	if st.LastSuccessfulOperation != nil {
		last = st.LastSuccessfulOperation.HydratedSHA
	}
	if current != head || last != head {
		observe("the sync branch is at %s; the status says hydratedSHA %q (current operation), %q (last successful)", head, current, last)
	}
}

// recordedIn finds the parameterized plugin's record among manifests and
// returns the environment it recorded.
func recordedIn(manifests []byte) (map[string]string, error) {
	objs, err := kube.Decode(manifests)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, o := range objs {
		names = append(names, o.GetKind()+"/"+o.GetName())
		if o.GetKind() != "ConfigMap" || o.GetName() != sidecar.ReceivedConfigMap {
			continue
		}
		var cm corev1.ConfigMap
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &cm); err != nil {
			return nil, err
		}
		return environOf(&cm)
	}
	return nil, fmt.Errorf("no ConfigMap %s among %v", sidecar.ReceivedConfigMap, names)
}
