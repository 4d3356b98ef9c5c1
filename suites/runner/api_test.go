package runner

import (
	"context"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
)

// TestInstalledCannot: on kind the node shows everything; on a cluster one
// is given a debug image shows what is in a plugin's container, and never
// what it changed; without the image, neither.
func TestInstalledCannot(t *testing.T) {
	nodeExec := func(context.Context, string, ...string) ([]byte, error) { return nil, nil }
	services := map[string]argocd.PluginService{"svc-v1.0": {}}
	for name, tc := range map[string]struct {
		in          *argocd.Installed
		files, left bool
	}{
		"kind":                        {&argocd.Installed{NodeExec: nodeExec, Services: services}, true, true},
		"existing with a debug image": {&argocd.Installed{DebugImage: "reg/debug:dev", Services: services}, true, false},
		"existing without":            {&argocd.Installed{Services: services}, false, false},
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
		for a := range InstalledCannot {
			if _, ok := got[a]; !ok {
				t.Errorf("%s: %s is possible, but no installed Argo CD can do it", name, a)
			}
		}
	}
	if _, cannot := installedCannot(&argocd.Installed{})[dsl.AbilityPluginServices]; !cannot {
		t.Error("without a plugin service, the service checks must not apply")
	}
}
