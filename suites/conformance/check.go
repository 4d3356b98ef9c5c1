// Package conformance is the check catalogue and its Ginkgo wiring. A check is
// a value listed in one registry (All); the wiring turns each into an It with
// labels, records its result as it finishes, and runs it against the
// reference plugins and, in self-test mode, against broken witnesses that must
// fail it. The package is a library (Register, Run) used by cmd/cmp-conformance
// and by plugin authors' own Ginkgo suites.
package conformance

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/Masterminds/semver/v3"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/fixtures/extension"
	"github.com/cmp-conformance/cmp-conformance/reports/v1alpha1"
)

// Area groups checks in the report and in label filters.
type Area string

// Areas of the catalogue.
const (
	Smoke         Area = "smoke"
	Announcements Area = "announcements"
	Environment   Area = "environment"
	Security      Area = "security"
	Pruning       Area = "pruning"
	Local         Area = "local"
	Service       Area = "service"
	Faults        Area = "faults"
	Helm          Area = "helm"
	Discover      Area = "discover"
	Initializing  Area = "init"
	Files         Area = "files"
	Credentials   Area = "credentials"
	Upgrade       Area = "upgrade"
	// Hydrator is the source hydrator with a plugin dry source.
	Hydrator Area = "hydrator"
	// Plugin is the plugin profile: black-box checks of one plugin as it
	// ships, judged on its author's samples (certify).
	Plugin Area = "plugin"
	// Extensions are Argo CD's resource customizations (health checks and
	// actions of a kind, configured in argocd-cm), judged live.
	Extensions Area = "extensions"
	// Output is what Argo CD makes of what a plugin prints.
	Output Area = "output"
	// Customizations is how Argo CD applies resource customizations
	// (overrides of its built-in health, useOpenLibs), judged with the
	// harness's own (plugins/customizations): the subject is Argo CD.
	Customizations Area = "customizations"
)

// Levels. Core: documented behaviour every conformant setup shows. Extended:
// optional features. Provisional: behaviour the specification promises that
// released Argo CD may not deliver; it runs, its real outcome is reported as a
// divergence with its upstream issue, and it never decides the verdict.
const (
	Core        = v1alpha1.LevelCore
	Extended    = v1alpha1.LevelExtended
	Provisional = v1alpha1.LevelProvisional
)

// Feature is something a plugin declares in plugin.yaml. A check requiring a
// feature the subject lacks is not-supported: neither passed nor skipped.
type Feature string

// Features, as argocd.Plugin reports them.
const (
	Discovery         Feature = argocd.FeatureDiscovery
	StaticParameters  Feature = argocd.FeatureStaticParameters
	DynamicParameters Feature = argocd.FeatureDynamicParameters
	PreserveFileMode  Feature = argocd.FeaturePreserveFileMode
	InitCommand       Feature = argocd.FeatureInitCommand
	ProvideGitCreds   Feature = argocd.FeatureProvideGitCreds
	Parameters        Feature = argocd.FeatureParameters
	Image             Feature = argocd.FeatureImage
)

// Role is the part a plugin plays for a check: checks ask for the plugin of a
// role, so the same check runs against the reference plugin and its witnesses.
type Role string

// Roles.
const (
	// RolePlain is a plugin without parameters, discovered by a marker file.
	RolePlain Role = "plain"
	// RoleParameterized announces parameters (static and dynamic) and records
	// in the cluster what it received (plugins/sidecar's contract).
	RoleParameterized Role = "parameterized"
	// RoleFaultyDynamic has a dynamic announcement command that misbehaves in
	// the way its "mode" parameter asks: fail, invalid-json, nameless.
	RoleFaultyDynamic Role = "faulty-dynamic"
	// RoleService is the parameterized contract served over the network: a
	// plugin service reached through cmp-bridge (plugins/service).
	RoleService Role = "service"
	// RoleFaultyGenerate generates like the plain plugin until its source
	// holds a file cmp-fault naming a fault: hang, crash, invalid-yaml, huge.
	RoleFaultyGenerate Role = "faulty-generate"
	// RoleHelm renders Helm charts as native Helm does (plugins/helm).
	RoleHelm Role = "helm"
	// The contract roles (plugins/contract*, discover-*, named-only) share
	// one program, cmp-contract: generate renders the folder's YAML and a
	// record of the working copy naming the plugin; checks derive every
	// marker from the bound plugin's name, so witnesses keep their own.
	//
	// RoleFiles records what it receives with default file modes.
	RoleFiles Role = "files"
	// RolePreserveFileMode is RoleFiles with preserveFileMode: true.
	RolePreserveFileMode Role = "preserve-file-mode"
	// RoleGitCreds is RoleFiles with provideGitCreds: true.
	RoleGitCreds Role = "git-creds"
	// RoleInit has an init command (cmp-contract init).
	RoleInit Role = "init"
	// RoleDiscoverFileName discovers by fileName "./<name>/s*.marker" and
	// sets find.glob "**/<name>-glob.marker", which fileName overrides.
	RoleDiscoverFileName Role = "discover-file-name"
	// RoleDiscoverGlob discovers by find.glob "**/<name>.marker" and sets
	// find.command (marker <name>-command.marker), which find.glob overrides.
	RoleDiscoverGlob Role = "discover-glob"
	// RoleDiscoverCommand discovers by find.command, marker <name>.marker.
	RoleDiscoverCommand Role = "discover-command"
	// RoleNamedOnly has no discover: it is used only by name.
	RoleNamedOnly Role = "named-only"
	// RoleSubject is any plugin under certification, judged only by what it
	// declares and does with its author's samples (Binding.Certification).
	RoleSubject Role = "subject"
	// RoleExtension is an extension folder in the layout of Argo CD's
	// resource_customizations (plugins/extension), not a plugin: its
	// Subject holds the Extension.
	RoleExtension Role = "extension"
	// RoleCustomizations is the harness's own extension folder
	// (plugins/customizations), with which the customizations area judges
	// Argo CD; its witnesses are extension folders too.
	RoleCustomizations Role = "customizations"
)

// IsExtension says whether the role's subject is an extension folder, not
// a plugin.
func (r Role) IsExtension() bool { return r == RoleExtension || r == RoleCustomizations }

// Check is one conformance check. Its ID is stable forever: reports, skip
// lists and baselines key on it.
type Check struct {
	ID       string
	Title    string
	Area     Area
	Level    v1alpha1.Level
	Requires []Feature
	// Versions is a semver constraint on the Argo CD version ("" = all).
	Versions string
	// Upstream names the issues and PRs the check is about (owner/repo#N).
	Upstream []string
	// Roles are the plugin roles the check uses.
	Roles []Role
	// AnyRole, when set, runs the check for a binding that has at least one
	// of these roles, over those it has (the UPG checks follow every
	// reference plugin's applications through a hop).
	AnyRole []Role
	// RepoServer are repo-server settings (ARGOCD_*=value) the check runs
	// under, for a documented behaviour behind an option; a later spec that
	// needs other settings, or the tree's end, gives the repo-server its own
	// back (settle). A binding's settings win (a witness that turns the
	// option off).
	RepoServer []string
	// Deadline, when set, is the repo-server deadline the check runs under
	// where the runtime can restart the application controller: its
	// controller.repo.server.timeout.seconds, and argocd-server's
	// server.repo.server.timeout.seconds where the runtime can restart it
	// too, set as a user sets them (argocd-cmd-params-cm, here the
	// components' environment), and their own after, as RepoServer's
	// (settle). A check that waits a hang out then takes that long, not the
	// environment's argocd.RepoServerTimeout; elsewhere it runs under the
	// environment's. Suite.RepoServerTimeout says which. Where
	// argocd-server runs under it, the check's set-up creates its
	// application without the server's validation (Suite.createApp).
	Deadline time.Duration
	// DeadlineAfterSetUp puts Deadline in force only when the check says
	// its set-up is over (Suite.StartDeadline): the set-up's own renders
	// (the sample synced before the fault is planted) run under the
	// environment's deadline, as an application a user had synced before
	// shortening it. A short deadline is chosen for what the check judges
	// (a hang); a slow machine's first render must not outrun it: seen,
	// FAULT-001 failed the reference at its set-up's sync, "context
	// deadline exceeded" past 6 s, on a machine five times slower.
	DeadlineAfterSetUp bool
	// ServerKeepsDeadline leaves argocd-server the environment's deadline
	// under a check's Deadline: for a check whose own API call waits,
	// inside the server's deadline, for steps the harness paces (DISC-009:
	// the other application's validation waits for a hang the harness
	// starts after it), so that the machine's pace never decides it.
	ServerKeepsDeadline bool
	// Needs are what the check needs of its runtime beyond Argo CD's API
	// and the cluster: where the runtime lacks one, the check does not
	// apply there, and the report says why. Settings in RepoServer need
	// dsl.AbilityRepoServerSettings without saying so.
	Needs []dsl.Ability
	// NothingToJudge says why the bound extension gives the check nothing to
	// judge (no health test, no action test), or "": the check then does
	// not apply to it, as a check of another version does not.
	NothingToJudge func(*extension.Extension) string
	Test           func(ctx context.Context, s *Suite)
}

// Lacks says why env's runtime cannot run the check, or "".
func (c Check) Lacks(env *dsl.Env) string {
	needs := c.Needs
	if len(c.RepoServer) > 0 {
		needs = append(slices.Clone(needs), dsl.AbilityRepoServerSettings)
	}
	for _, a := range needs {
		if why := env.Lacks(a); why != "" {
			return why
		}
	}
	return ""
}

// AppliesTo says whether the check applies to an Argo CD version.
func (c Check) AppliesTo(version string) (bool, error) {
	if c.Versions == "" {
		return true, nil
	}
	constraint, err := semver.NewConstraint(c.Versions)
	if err != nil {
		return false, fmt.Errorf("check %s: bad version constraint %q: %w", c.ID, c.Versions, err)
	}
	v, err := semver.NewVersion(version)
	if err != nil {
		return false, fmt.Errorf("argo CD version %q: %w", version, err)
	}
	return constraint.Check(v), nil
}

// Labels are the Ginkgo labels of a check: its ID, area, level and features,
// so --label-filter can select by any of them.
func (c Check) Labels() []string {
	out := []string{c.ID, string(c.Area), string(c.Level)}
	for _, f := range c.Requires {
		out = append(out, string(f))
	}
	return out
}
