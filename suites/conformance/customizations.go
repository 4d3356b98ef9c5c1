package conformance

import (
	"context"
	"io/fs"
	"path"
	"strings"

	"github.com/argoproj/argo-cd/v3/resource_customizations"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/fixtures/extension"
)

// The CUST family judges Argo CD, the version under test: how it applies
// resource customizations from argocd-cm, with the harness's own
// (plugins/customizations, RoleCustomizations). Each check judges the
// health tests of the kinds of its own group, live, as EXT-001 judges an
// author's; a witness is a folder of the same role whose configuration
// makes Argo CD do what the check says it must not.

// openLibsGroup is CUST-001's group: a kind of it (or of a group under it,
// a witness's own) says in its health message whether its script was
// given Lua's open libraries.
const openLibsGroup = "openlibs.cmpc.example.com"

// CUST-001: docs/operator-manual/health.md: "As a security measure, access
// to the standard Lua libraries will be disabled by default", and a kind's
// resource.customizations.useOpenLibs.<group_Kind> "true" enables them. A
// script that reaches for string, math or io is contained unless an
// operator opened them for its kind (util/lua: SkipOpenLibs unless
// UseOpenLibs); Argo CD's own health-test runner opens them for every
// script, so only a live object shows it.
var custOpenLibs = Check{
	ID:    "CUST-001",
	Title: "a customized health script runs without Lua's open libraries unless argocd-cm opens them for its kind (useOpenLibs)",
	Area:  Customizations, Level: Core, Versions: ">=2.1.0", Roles: []Role{RoleCustomizations},
	Needs:          []dsl.Ability{dsl.AbilityExtensions},
	NothingToJudge: withoutCases(only(ofOpenLibsGroup, healthTests), "no kind of group "+openLibsGroup+" with a health test"),
	Test: func(ctx context.Context, s *Suite) {
		judgeHealthTests(ctx, s, s.ExtensionOf(RoleCustomizations), ofOpenLibsGroup)
	},
}

// CUST-002: a customization of a kind Argo CD ships a built-in health
// script for takes the built-in's place (docs/operator-manual/health.md,
// "Custom Health Checks": a check in argocd-cm, or contributed to Argo CD;
// util/lua GetHealthScript looks in argocd-cm before the embedded scripts).
// An operator who overrides a built-in to fit their cluster (cert-manager,
// Rollouts, Crossplane) relies on it.
var custOverridesBuiltIn = Check{
	ID:    "CUST-002",
	Title: "a customized health script of a kind Argo CD has a built-in script for answers in the built-in's place",
	Area:  Customizations, Level: Core, Versions: ">=2.1.0", Roles: []Role{RoleCustomizations},
	Needs:          []dsl.Ability{dsl.AbilityExtensions},
	NothingToJudge: withoutCases(only(hasBuiltInHealth, healthTests), "no kind with a built-in health script in Argo CD and a health test"),
	Test: func(ctx context.Context, s *Suite) {
		judgeHealthTests(ctx, s, s.ExtensionOf(RoleCustomizations), hasBuiltInHealth)
	},
}

// hasBuiltInHealth says whether Argo CD embeds a health script for k's
// kind (resource_customizations of the argo-cd module this harness links:
// the kinds it judges, cert-manager's, have had theirs since Argo CD 1.x).
func hasBuiltInHealth(k extension.Kind) bool {
	if k.Wildcard {
		return false
	}
	_, err := fs.Stat(resource_customizations.Embedded, path.Join(k.Group, k.Kind, "health.lua"))
	return err == nil
}

// ofOpenLibsGroup says whether k is of openLibsGroup or a group under it.
func ofOpenLibsGroup(k extension.Kind) bool {
	return k.Group == openLibsGroup || strings.HasSuffix(k.Group, "."+openLibsGroup)
}

// only counts a kind's cases where keep takes the kind, none elsewhere.
func only(keep func(extension.Kind) bool, cases func(extension.Kind) int) func(extension.Kind) int {
	return func(k extension.Kind) int {
		if !keep(k) {
			return 0
		}
		return cases(k)
	}
}
