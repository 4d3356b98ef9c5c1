package runner

import (
	"context"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
)

// TestInstalledCannot: on kind the node shows everything; on a cluster one
// is given a debug image shows what is in a plugin's container, and never
// what it changed, and reads a sidecar's records; without the image, none.
// (kind's scratch folders are the node's: DSL drops that lack there.)
func TestInstalledCannot(t *testing.T) {
	nodeExec := func(context.Context, string, ...string) ([]byte, error) { return nil, nil }
	services := map[string]argocd.PluginService{"svc-v1.0": {}}
	for name, tc := range map[string]struct {
		in                   *argocd.Installed
		files, left, scratch bool
	}{
		"kind":                        {&argocd.Installed{NodeExec: nodeExec, Services: services}, true, true, false},
		"existing with a debug image": {&argocd.Installed{DebugImage: "reg/debug:dev", Services: services}, true, false, true},
		"existing without":            {&argocd.Installed{Services: services}, false, false, false},
	} {
		got := installedCannot(tc.in)
		if _, cannot := got[dsl.AbilityPluginFiles]; cannot == tc.files {
			t.Errorf("%s: plugin files possible = %t, want %t", name, !cannot, tc.files)
		}
		if _, cannot := got[dsl.AbilityPluginLeftovers]; cannot == tc.left {
			t.Errorf("%s: plugin leftovers possible = %t, want %t", name, !cannot, tc.left)
		}
		if _, cannot := got[dsl.AbilityPluginServices]; cannot {
			t.Errorf("%s: a plugin service runs, yet the services are refused", name)
		}
		if _, cannot := got[dsl.AbilityPluginScratch]; cannot == tc.scratch {
			t.Errorf("%s: plugin scratch possible = %t, want %t", name, !cannot, tc.scratch)
		}
		for a := range InstalledCannot {
			if _, ok := got[a]; !ok && a != dsl.AbilityPluginScratch {
				t.Errorf("%s: %s is possible, but no installed Argo CD can do it", name, a)
			}
		}
	}
	if _, cannot := installedCannot(&argocd.Installed{})[dsl.AbilityPluginServices]; !cannot {
		t.Error("without a plugin service, the service checks must not apply")
	}
}
