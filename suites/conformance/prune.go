package conformance

import (
	"context"
	"fmt"
	"regexp"

	"github.com/Masterminds/semver/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/onsi/ginkgo/v2"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/fixtures/gitserver"
)

// The PRUNE family: resources a plugin makes are Argo CD's to delete and
// prune, exactly like a native tool's (argo-cd#8243, fixed in v2.3 by
// #8367), and a plugin's failure never costs a resource (#15339).

// syncedPruneApp syncs a plain-plugin application with two ConfigMaps, and
// waits until Argo CD has compared it Synced: only then does the
// controller's view of the cluster hold what the sync created. A deletion
// issued before that finds nothing to delete ("Successfully deleted 0
// resources", seen on v3.6.1 under load), which says nothing of plugins.
func syncedPruneApp(ctx context.Context, s *Suite, prefix string) *dsl.Consequences {
	c := s.DiscoveredBy(s.Given(ctx).NamePrefix(prefix).Path("prune-app"), RolePlain)
	return expectSyncedThroughPlugin(s, c).
		ExpectWithin(s.Env.Timeouts.Settle, dsl.ResourceExists("v1", "ConfigMap", "prune-keep", nil)).
		ExpectWithin(s.Env.Timeouts.Settle, dsl.ResourceExists("v1", "ConfigMap", "prune-drop", nil)).
		ExpectWithin(s.Env.Timeouts.AppSynced, dsl.SyncStatusIs("Synced"))
}

var pruneCascadeDelete = Check{
	ID: "PRUNE-001", Title: "cascade deletion of the application removes every resource the plugin made (foreground and background)",
	Area: Pruning, Level: Core, Versions: ">=2.3.0", Requires: []Feature{Discovery}, Roles: []Role{RolePlain},
	Upstream: []string{"argoproj/argo-cd#8243", "argoproj/argo-cd#8367"},
	Test: func(ctx context.Context, s *Suite) {
		for _, policy := range []string{"foreground", "background"} {
			ginkgo.By("cascade deletion with " + policy + " propagation")
			syncedPruneApp(ctx, s, "prune-del").
				When().DeleteWith(true, policy).
				Then().Expect(dsl.NoActionError()).
				ExpectWithin(s.Env.Timeouts.AppDeleted, dsl.AppGone()).
				ExpectWithin(s.Env.Timeouts.Settle, dsl.ResourceGone("v1", "ConfigMap", "prune-keep")).
				ExpectWithin(s.Env.Timeouts.Settle, dsl.ResourceGone("v1", "ConfigMap", "prune-drop"))
		}
	},
}

var pruneDroppedResource = Check{
	ID: "PRUNE-002", Title: "a resource dropped from the plugin's output requires pruning, and only a sync with prune deletes it",
	Area: Pruning, Level: Core, Versions: ">=2.3.0", Requires: []Feature{Discovery}, Roles: []Role{RolePlain},
	Upstream: []string{"argoproj/argo-cd#8243"},
	Test: func(ctx context.Context, s *Suite) {
		syncedPruneApp(ctx, s, "prune-drop").
			When().Push(gitserver.Change{Message: "drop a resource", Delete: []string{"drop.yaml"}}).Refresh(true).
			Then().Expect(dsl.NoActionError()).
			Expect(dsl.RequiresPruning("ConfigMap", "prune-drop")).
			When().Sync(false).
			Then().ExpectWithin(s.Env.Timeouts.AppSynced, dsl.OperationPhaseIs("Succeeded")).
			// Without prune, the resource stays: pruning is the user's decision.
			// (OperationPhaseIs waited for this sync to finish, so this is final.)
			ExpectWithin(s.Env.Timeouts.Settle, dsl.ResourceExists("v1", "ConfigMap", "prune-drop", nil)).
			When().Sync(true).
			Then().ExpectWithin(s.Env.Timeouts.AppSynced, dsl.OperationPhaseIs("Succeeded")).
			ExpectWithin(s.Env.Timeouts.Settle, dsl.ResourceGone("v1", "ConfigMap", "prune-drop")).
			ExpectWithin(s.Env.Timeouts.Settle, dsl.ResourceExists("v1", "ConfigMap", "prune-keep", nil))
	},
}

// anyMessage matches any condition message.
var anyMessage = regexp.MustCompile(`.`)

var pruneFailingPlugin = Check{
	ID: "PRUNE-003", Title: "a plugin that fails never prunes: the error surfaces and every resource stays",
	Area: Pruning, Level: Core, Versions: ">=2.3.0", Requires: []Feature{Discovery}, Roles: []Role{RolePlain},
	Upstream: []string{"argoproj/argo-cd#15339"},
	Test: func(ctx context.Context, s *Suite) {
		// With no YAML left, a conforming plugin fails (the plain plugin
		// refuses to print an empty manifest list) rather than print nothing.
		syncedPruneApp(ctx, s, "prune-fail").
			When().Push(gitserver.Change{Message: "break the source", Delete: []string{"drop.yaml", "keep.yaml"}}).Refresh(true).
			Then().Expect(dsl.NoActionError()).
			Expect(dsl.ErrorSurfaces("ComparisonError", anyMessage)).
			When().Sync(true).
			// Judged once the sync is over (or was refused): before, an
			// existing resource would prove nothing.
			Then().ExpectWithin(s.Env.Timeouts.AppSynced, dsl.OperationFinished()).
			ExpectWithin(s.Env.Timeouts.Settle, dsl.ResourceExists("v1", "ConfigMap", "prune-keep", nil)).
			ExpectWithin(s.Env.Timeouts.Settle, dsl.ResourceExists("v1", "ConfigMap", "prune-drop", nil))
	},
}

var pruneTracking = Check{
	ID: "PRUNE-004", Title: "every resource the plugin makes carries Argo CD's tracking metadata (the version's default method)",
	Area: Pruning, Level: Core, Versions: ">=2.3.0", Requires: []Feature{Discovery}, Roles: []Role{RolePlain},
	Upstream: []string{"argoproj/argo-cd#8243", "argoproj/argo-cd#8367"},
	Test: func(ctx context.Context, s *Suite) {
		synced := syncedPruneApp(ctx, s, "prune-track")
		app := synced.Actions().Context().Name()
		for _, name := range []string{"prune-keep", "prune-drop"} {
			synced.ExpectWithin(s.Env.Timeouts.Settle, dsl.ResourceExists("v1", "ConfigMap", name, func(obj *unstructured.Unstructured) error {
				return tracked(s.ArgoCDVersion, app, obj)
			}))
		}
	},
}

// tracked checks obj carries the tracking metadata of the version's default
// method: the annotation argocd.argoproj.io/tracking-id from v3.0, the label
// app.kubernetes.io/instance before (argo-cd docs, resource tracking).
func tracked(version, app string, obj *unstructured.Unstructured) error {
	if v, err := semver.NewVersion(version); err == nil && v.Major() < 3 {
		if got := obj.GetLabels()["app.kubernetes.io/instance"]; got != app {
			return fmt.Errorf("label app.kubernetes.io/instance is %q, want %q (Argo CD %s tracks by label)", got, app, version)
		}
		return nil
	}
	gvk := obj.GroupVersionKind()
	want := fmt.Sprintf("%s:%s/%s:%s/%s", app, gvk.Group, gvk.Kind, obj.GetNamespace(), obj.GetName())
	if got := obj.GetAnnotations()["argocd.argoproj.io/tracking-id"]; got != want {
		return fmt.Errorf("annotation argocd.argoproj.io/tracking-id is %q, want %q (Argo CD %s tracks by annotation)", got, want, version)
	}
	return nil
}
