package conformance

import (
	"context"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/onsi/gomega"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/plugins/contract"
)

// MULTI-001: a plugin source inside a multi-source application (2.6+, with a
// `ref` source as the docs' values example has). Each source is generated
// on its own: the plugin gets its own source's folder and environment, and
// the application holds every source's objects. The plugin's source comes
// last, after a ref source and a directory source, so that a plugin handed
// sources[0] would show. Passing `$ref` files to a plugin is not promised
// (argo-cd#12476, #11814 open) and is not asserted.

var multiSource = Check{
	ID:    "MULTI-001",
	Title: "a plugin source in a multi-source application (after a ref source and a directory source) renders its own folder with its own source's environment, and the application syncs every source's objects, each once",
	Area:  Smoke, Level: Core, Versions: ">=2.6.0", Requires: []Feature{Discovery}, Roles: []Role{RoleFiles},
	Test: func(ctx context.Context, s *Suite) {
		c := s.DiscoveredBy(s.Given(ctx).NamePrefix("multi").Path("contract-app").SourcePath("apps/app").
			File("apps/app/config.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: multi-plugin\n")).
			File("plain/objects.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: multi-plain\n")).
			MultiSource(
				v1alpha1.ApplicationSource{TargetRevision: "main", Ref: "values"},
				v1alpha1.ApplicationSource{TargetRevision: "main", Path: "plain"},
			), RoleFiles)
		cons := c.When().CreateApp().Then().Expect(dsl.NoActionError())
		var manifests []string
		gomega.Eventually(func() error {
			m, err := cons.Manifests(false)
			if err == nil {
				manifests = m
			}
			return err
		}).WithContext(ctx).WithTimeout(s.Env.Timeouts.Refresh).WithPolling(s.Env.Timeouts.Poll).
			Should(gomega.Succeed(), "generating the multi-source application's manifests")
		rec, err := findRecord(manifests)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the plugin source of the multi-source application was not rendered by the plugin (manifests: %v)", manifestNames(manifests))
		gomega.Expect(rec.Plugin).To(gomega.Equal(s.Plugin(RoleFiles).Name), "the plugin source was rendered by %q", rec.Plugin)
		gomega.Expect(rec.SourcePath).To(gomega.Equal("apps/app"), "the plugin ran with ARGOCD_APP_SOURCE_PATH %q, not its own source's", rec.SourcePath)
		names := manifestNames(manifests)
		for _, want := range []string{"ConfigMap/multi-plugin", "ConfigMap/multi-plain", "ConfigMap/" + contract.RecordConfigMap} {
			n := 0
			for _, got := range names {
				if got == want {
					n++
				}
			}
			gomega.Expect(n).To(gomega.Equal(1), "%s appears %d times among the application's generated manifests %v; want once", want, n, names)
		}
		cons.When().Sync(true).Then().
			ExpectWithin(s.Env.Timeouts.AppSynced, dsl.OperationFinished()).
			ExpectWithin(s.Env.Timeouts.AppSynced, dsl.SyncStatusIs(v1alpha1.SyncStatusCodeSynced)).
			Expect(dsl.ResourceExists("v1", "ConfigMap", "multi-plugin", nil)).
			Expect(dsl.ResourceExists("v1", "ConfigMap", "multi-plain", nil))
	},
}
