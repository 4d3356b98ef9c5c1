package conformance

import (
	"context"
	"fmt"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/gitops-engine/pkg/health"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
)

// The smoke family proves the sidecar path end to end before anything finer
// is checked: discovery, generation by argocd-cmp-server, sync, health.

// SmokeDiscoveredAppSyncs: an app discovered by a plugin syncs through it.
var SmokeDiscoveredAppSyncs = Check{
	ID:       "SMOKE-001",
	Title:    "an application discovered by a plugin syncs to Synced and Healthy through the sidecar",
	Area:     Smoke,
	Level:    Core,
	Requires: []Feature{Discovery},
	Roles:    []Role{RolePlain},
	Test: func(ctx context.Context, s *Suite) {
		s.DiscoveredBy(s.Given(ctx).NamePrefix("smoke-disc").Path("smoke-plain"), RolePlain).
			When().CreateApp().Sync(false).
			Then().Expect(dsl.NoActionError()).
			// Plugin, not Directory: a plain YAML folder would also sync
			// through Argo CD's directory fallback if discovery failed.
			Expect(dsl.SourceTypeIs(v1alpha1.ApplicationSourceTypePlugin)).
			ExpectWithin(s.Env.Timeouts.AppSynced, dsl.OperationPhaseIs("Succeeded")).
			Expect(dsl.SyncStatusIs(v1alpha1.SyncStatusCodeSynced)).
			ExpectWithin(s.Env.Timeouts.AppHealthy, dsl.HealthIs(health.HealthStatusHealthy))
	},
}

// SmokeResourcesExist: what the plugin generated is what is in the cluster.
var SmokeResourcesExist = Check{
	ID:       "SMOKE-002",
	Title:    "every resource the plugin generates exists in the cluster as generated",
	Area:     Smoke,
	Level:    Core,
	Requires: []Feature{Discovery},
	Roles:    []Role{RolePlain},
	Test: func(ctx context.Context, s *Suite) {
		s.DiscoveredBy(s.Given(ctx).NamePrefix("smoke-res").Path("smoke-plain"), RolePlain).
			When().CreateApp().Sync(false).
			Then().Expect(dsl.NoActionError()).
			Expect(dsl.SourceTypeIs(v1alpha1.ApplicationSourceTypePlugin)).
			ExpectWithin(s.Env.Timeouts.AppSynced, dsl.OperationPhaseIs("Succeeded")).
			ExpectWithin(s.Env.Timeouts.Settle, dsl.ResourceExists("v1", "ConfigMap", "smoke-config", func(obj *unstructured.Unstructured) error {
				got, _, _ := unstructured.NestedString(obj.Object, "data", "greeting")
				if got != "hello from a plugin" {
					return fmt.Errorf("data.greeting is %q, want %q", got, "hello from a plugin")
				}
				return nil
			})).
			ExpectWithin(s.Env.Timeouts.Settle, dsl.ResourceExists("apps/v1", "Deployment", "smoke", nil)).
			ExpectWithin(s.Env.Timeouts.Settle, dsl.ManagedResources("ConfigMap/smoke-config", "Deployment/smoke"))
	},
}

// SmokeNamedPluginSyncs: spec.source.plugin.name selects the plugin without discovery.
var SmokeNamedPluginSyncs = Check{
	ID:       "SMOKE-003",
	Title:    "an application naming its plugin (spec.source.plugin.name) syncs through that plugin",
	Area:     Smoke,
	Level:    Core,
	Versions: ">=2.6.0",
	Upstream: []string{"argoproj/argo-cd#11341"},
	Roles:    []Role{RolePlain},
	Test: func(ctx context.Context, s *Suite) {
		// A named plugin with discovery configured must still match (#18053),
		// so the marker is present as it would be in a real repository.
		s.DiscoveredBy(s.Given(ctx).NamePrefix("smoke-named").Path("smoke-plain"), RolePlain).
			Plugin(s.Plugin(RolePlain).FullName()).
			When().CreateApp().Sync(false).
			Then().Expect(dsl.NoActionError()).
			Expect(dsl.SourceTypeIs(v1alpha1.ApplicationSourceTypePlugin)).
			ExpectWithin(s.Env.Timeouts.AppSynced, dsl.OperationPhaseIs("Succeeded")).
			Expect(dsl.SyncStatusIs(v1alpha1.SyncStatusCodeSynced)).
			ExpectWithin(s.Env.Timeouts.AppHealthy, dsl.HealthIs(health.HealthStatusHealthy))
	},
}
