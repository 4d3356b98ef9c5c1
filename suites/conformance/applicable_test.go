package conformance

import (
	"context"
	"strings"
	"testing"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/fixtures/extension"
)

// A check the runtime cannot run says why: the plugin of a role it needs
// cannot run there, or the runtime lacks an ability it needs.
func TestNotApplicable(t *testing.T) {
	sidecar := Subject{Role: RolePlain, Plugin: argocd.Plugin{Name: "cmp-plain", Version: "v1.0", Image: "plain:dev"}}
	host := Subject{Role: RoleService, Plugin: argocd.Plugin{Name: "cmp-service", Version: "v1.0"}, Unavailable: "it is a program of this host"}
	b := Binding{Name: "conformance", Subjects: map[Role]Subject{RolePlain: sidecar, RoleService: host}}
	full := dsl.NewEnv(dsl.Env{RepoServer: fakeSettings{}})
	kind := dsl.NewEnv(dsl.Env{Cannot: map[dsl.Ability]string{dsl.AbilityPluginFiles: "the sidecars are in pods"}})
	for _, c := range []struct {
		name  string
		env   *dsl.Env
		check Check
		want  string
	}{
		{"all there", full, Check{Roles: []Role{RolePlain}}, ""},
		{"a host plugin's role", full, Check{Roles: []Role{RolePlain, RoleService}}, "the service plugin cmp-service-v1.0 cannot run here: it is a program of this host"},
		{"any role, one runs", full, Check{AnyRole: []Role{RoleService, RolePlain}}, ""},
		{"any role, none runs", full, Check{AnyRole: []Role{RoleService, RoleHelm}}, "the service plugin cmp-service-v1.0 cannot run here"},
		{"an ability the runtime says it lacks", kind, Check{Roles: []Role{RolePlain}, Needs: []dsl.Ability{dsl.AbilityPluginFiles}},
			"needs looking for a file inside a plugin's file system, which this runtime cannot give: the sidecars are in pods"},
		{"an ability no one implements", kind, Check{Roles: []Role{RolePlain}, Needs: []dsl.Ability{dsl.AbilityPluginServices}},
			"needs stopping and starting a plugin served over the network, which this runtime cannot give"},
		{"repo-server settings need the ability", kind, Check{Roles: []Role{RolePlain}, RepoServer: []string{"ARGOCD_X=1"}},
			"needs restarting the repo-server with other settings, which this runtime cannot give"},
		{"repo-server settings where it can", full, Check{Roles: []Role{RolePlain}, RepoServer: []string{"ARGOCD_X=1"}}, ""},
	} {
		got := notApplicable(c.env, b, c.check)
		if (c.want == "") != (got == "") || !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: notApplicable = %q, want %q", c.name, got, c.want)
		}
	}
}

type fakeSettings struct{}

func (fakeSettings) ReconfigureRepoServer(context.Context, []string) error { return nil }

// A network variant needs what its base needs: SVC-005 looks for SEC-001's
// canary inside the plugin's container, and is not applicable where that
// cannot be done, as SEC-001 is.
func TestThroughNetworkKeepsNeeds(t *testing.T) {
	if len(svcHostile.Needs) == 0 || svcHostile.Needs[0] != dsl.AbilityPluginFiles {
		t.Errorf("SVC-005 needs %v, want SEC-001's %v", svcHostile.Needs, secHostileValues.Needs)
	}
}

// An extension without cases of a check is not judged by it: EXT-002 does
// not apply to an extension of health checks only, EXT-001 does; a runtime
// that cannot install extensions runs neither.
func TestExtensionNothingToJudge(t *testing.T) {
	healthOnly := Subject{Role: RoleExtension, Extension: &extension.Extension{Kinds: []extension.Kind{{Kind: "Widget", HealthTests: []extension.HealthTest{{InputPath: "testdata/a.yaml"}}}}}}
	b := Binding{Name: "broken/health-only", Subjects: map[Role]Subject{RoleExtension: healthOnly}}
	full := dsl.NewEnv(dsl.Env{})
	if got := notApplicable(full, b, extHealth); got != "" {
		t.Errorf("EXT-001 on an extension with a health test: %q, want it to apply", got)
	}
	if got := notApplicable(full, b, extActions); !strings.Contains(got, "no action test") {
		t.Errorf("EXT-002 on an extension without actions: %q, want it not to apply, saying why", got)
	}
	kind := dsl.NewEnv(dsl.Env{Cannot: map[dsl.Ability]string{dsl.AbilityExtensions: "not yet"}})
	if got := notApplicable(kind, b, extHealth); !strings.Contains(got, "not yet") {
		t.Errorf("EXT-001 where extensions cannot be installed: %q, want it not to apply", got)
	}
	// Nothing to judge is no limit of the runtime: a certification of an
	// extension of health checks only is not held back by EXT-002.
	cfg := Config{Env: func() *dsl.Env { return dsl.NewEnv(dsl.Env{ArgoCDVersion: "v3.6.1"}) }}
	if runtimeLimited(cfg, b, extActions) {
		t.Error("EXT-002 on an extension without actions counts as runtime-limited: its certification would be Not Certified")
	}
	cfg.Env = func() *dsl.Env {
		return dsl.NewEnv(dsl.Env{ArgoCDVersion: "v3.6.1", Cannot: map[dsl.Ability]string{dsl.AbilityExtensions: "not yet"}})
	}
	if !runtimeLimited(cfg, b, extHealth) {
		t.Error("EXT-001 where extensions cannot be installed: want runtime-limited")
	}
}
