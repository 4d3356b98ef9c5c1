package conformance

import (
	"context"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/fixtures/extension"
)

// Subject is the plugin bound to a role in one binding, or for
// RoleExtension the extension.
type Subject struct {
	Role   Role
	Plugin argocd.Plugin
	// Extension is the subject of RoleExtension (Plugin is then empty).
	Extension *extension.Extension
	// Unavailable says why the plugin cannot run on this run's runtime (a
	// plugin of this host on kind, whose plugins are sidecars from images):
	// the checks of its role do not apply, and the report says why.
	Unavailable string
}

// Binding runs the catalogue with plugins bound to roles. The conformance
// binding uses the reference plugins; a witness binding uses one broken
// plugin and lists the checks it must fail (every other check of its role it
// must pass).
type Binding struct {
	Name     string
	Subjects map[Role]Subject
	Witness  bool
	MustFail []string
	// FailsWith says, for each check a witness must fail, how: a pattern its
	// failure message must match, keyed by the check's ID, or by
	// ID@constraint where the reason changes with the Argo CD version (a
	// version's own key wins over the plain ID). A failure for another
	// reason (a precondition that broke, a timeout elsewhere) proves nothing
	// and is a mismatch.
	FailsWith map[string]*regexp.Regexp
	// Certification holds the subject's samples in a certify binding.
	Certification *Certification
	// RepoServerSettings (ARGOCD_*=value) are set on the repo-server while
	// the binding's checks run (settle: each spec gives Argo CD the
	// settings it needs, restarting only what runs with others): a witness
	// that is an Argo CD with a protection turned off, not a plugin.
	RepoServerSettings []string
	// ControllerSettings are the same for the application controller (the
	// source hydrator's switch is one).
	ControllerSettings []string
	// RBACSettings are keys of argocd-rbac-cm (policy.default, say) set
	// the same way: a witness that is an Argo CD whose RBAC lets everyone do
	// everything.
	RBACSettings map[string]string
	// aside are the sockets of the run's other witnesses, out of the
	// repo-server's sight while the binding's checks run (Register).
	aside []string
}

// ChangesArgoCD says whether the binding runs under repo-server,
// controller or RBAC settings of its own.
func (b Binding) ChangesArgoCD() bool {
	return len(b.RepoServerSettings) > 0 || len(b.ControllerSettings) > 0 || len(b.RBACSettings) > 0
}

// FailsForTheRightReason says whether a witness's failure of check id on
// Argo CD version (message msg) is the one it declares; with no
// declaration, none is: a failure for an unnamed reason proves nothing
// (Register refuses a binding without any before anything runs).
func (b Binding) FailsForTheRightReason(id, version, msg string) (bool, string) {
	re := b.reason(id, version)
	if re == nil {
		return false, fmt.Sprintf("failed, but the witness declares no reason for failing %s on %s (failsWith): a failure proves nothing without one", id, version)
	}
	if re.MatchString(msg) {
		return true, ""
	}
	return false, fmt.Sprintf("failed, but not for the reason the witness declares (its message must match /%s/)", re)
}

// reason is the pattern FailsWith declares for id on version: the one of a
// constraint version meets, else the plain ID's.
func (b Binding) reason(id, version string) *regexp.Regexp {
	v, verr := semver.NewVersion(version)
	for key, re := range b.FailsWith {
		kid, constraint, ok := strings.Cut(key, "@")
		if !ok || kid != id || verr != nil {
			continue
		}
		if c, err := semver.NewConstraint(constraint); err == nil && c.Check(v) {
			return re
		}
	}
	return b.FailsWith[id]
}

// undeclared lists the checks a witness must fail without saying how
// (FailsWith, for any version): a binding the library refuses.
func (b Binding) undeclared() []string {
	var out []string
	for _, m := range b.MustFail {
		id, _, _ := strings.Cut(m, "@")
		declared := false
		for key := range b.FailsWith {
			if kid, _, _ := strings.Cut(key, "@"); kid == id {
				declared = true
			}
		}
		if b.Witness && !declared {
			out = append(out, id)
		}
	}
	return out
}

// Has says whether the binding provides the roles of a check: every one of
// Roles, and one of AnyRole at least.
func (b Binding) Has(c Check) bool {
	for _, r := range c.Roles {
		if _, ok := b.Subjects[r]; !ok {
			return false
		}
	}
	if len(c.AnyRole) == 0 {
		return true
	}
	for _, r := range c.AnyRole {
		if _, ok := b.Subjects[r]; ok {
			return true
		}
	}
	return false
}

// Expects says whether the binding should pass or fail a check on an Argo
// CD version. A MustFail entry is an ID, or ID@constraint when what the check
// expects changes with the version (ENV-008@>=3.0.0: a witness that drops
// empty values violates v3's rule but meets v2's).
func (b Binding) Expects(id, version string) string {
	if !b.Witness {
		return "pass"
	}
	for _, entry := range b.MustFail {
		mid, constraint, conditional := strings.Cut(entry, "@")
		if mid != id {
			continue
		}
		if !conditional {
			return "fail"
		}
		if c, err := semver.NewConstraint(constraint); err == nil {
			if v, err := semver.NewVersion(version); err == nil && c.Check(v) {
				return "fail"
			}
		}
	}
	return "pass"
}

// ValidateMustFail checks each MustFail entry: a known check ID, with a
// valid version constraint if it has one.
func ValidateMustFail(entries []string, known map[string]bool) error {
	for _, entry := range entries {
		id, constraint, conditional := strings.Cut(entry, "@")
		if !known[id] {
			return fmt.Errorf("mustFail names %s, which is not a check", id)
		}
		if conditional {
			if _, err := semver.NewConstraint(constraint); err != nil {
				return fmt.Errorf("mustFail %s: bad version constraint: %w", entry, err)
			}
		}
	}
	return nil
}

// Suite is what a check runs against: the DSL environment and the plugins of
// the current binding. Checks know nothing of how the cluster was made.
type Suite struct {
	Env           *dsl.Env
	ArgoCDVersion string
	binding       Binding
	// hop is the hop of an upgrade run the check judges (nil otherwise).
	hop *hopRun
	// deadline is the controller's repo-server deadline in effect ("" for
	// the environment's).
	deadline time.Duration
	// serverDeadline says argocd-server runs under deadline too.
	serverDeadline bool
	// pendingDeadline puts the check's deadline in force once its set-up
	// is over (Check.DeadlineAfterSetUp; nil once done, or for others).
	pendingDeadline func(context.Context)
}

// StartDeadline puts the check's Deadline in force, for a check whose
// set-up ran under the environment's (Check.DeadlineAfterSetUp): call it
// once the set-up has synced, before what the deadline bounds. Elsewhere
// it does nothing.
func (s *Suite) StartDeadline(ctx context.Context) {
	if s.pendingDeadline == nil {
		return
	}
	put := s.pendingDeadline
	s.pendingDeadline = nil
	put(ctx)
}

// createApp is how a check's set-up creates its application: validated by
// argocd-server, as a user's is, unless argocd-server runs under the
// check's own deadline. Its validation renders the sample there, under a
// bound chosen for what the check judges (a hang), and a slow machine's
// render would decide the verdict: seen, FAULT-001 failed the reference at
// its validated creation, past 6 s on a machine four times slower.
func (s *Suite) createApp(c *dsl.Context) *dsl.Actions {
	if s.serverDeadline {
		return c.When().CreateAppUnvalidated()
	}
	return c.When().CreateApp()
}

// RepoServerTimeout is the deadline the controller's calls to the
// repo-server run under for this check: its Deadline where the runtime
// could set it, else the environment's.
func (s *Suite) RepoServerTimeout() time.Duration {
	if s.deadline > 0 {
		return s.deadline
	}
	n, _ := strconv.Atoi(argocd.RepoServerTimeout)
	return time.Duration(n) * time.Second
}

// NewSuite makes the suite of one binding.
func NewSuite(env *dsl.Env, binding Binding) *Suite {
	return &Suite{Env: env, ArgoCDVersion: env.ArgoCDVersion, binding: binding}
}

// Plugin returns the plugin bound to role.
func (s *Suite) Plugin(role Role) argocd.Plugin {
	sub, ok := s.binding.Subjects[role]
	if !ok {
		panic(fmt.Sprintf("binding %s has no plugin for role %s", s.binding.Name, role))
	}
	return sub.Plugin
}

// Extension is the extension bound to RoleExtension.
func (s *Suite) Extension() *extension.Extension { return s.ExtensionOf(RoleExtension) }

// ExtensionOf is the extension bound to an extension role.
func (s *Suite) ExtensionOf(role Role) *extension.Extension {
	sub, ok := s.binding.Subjects[role]
	if !ok || sub.Extension == nil {
		panic(fmt.Sprintf("binding %s has no extension for role %s", s.binding.Name, role))
	}
	return sub.Extension
}

// Name is the subject's name in a report: the plugin's, or the extension's
// folder.
func (s Subject) Name() string {
	if s.Extension != nil {
		return filepath.Base(s.Extension.Dir)
	}
	return s.Plugin.FullName()
}

// Certification is the binding's certify.yaml (nil outside certify).
func (s *Suite) Certification() *Certification { return s.binding.Certification }

// standIn returns the suite in which role's plugin is sub's: a check written
// for one role runs against another plugin that keeps the same contract
// (the parameterized contract, served over the network).
func (s *Suite) standIn(role, sub Role) *Suite {
	b := s.binding
	b.Subjects = maps.Clone(b.Subjects)
	b.Subjects[role] = b.Subjects[sub]
	return &Suite{Env: s.Env, ArgoCDVersion: s.ArgoCDVersion, binding: b}
}

// Given starts a spec.
func (s *Suite) Given(ctx context.Context) *dsl.Context { return dsl.Given(ctx, s.Env) }

// DiscoveredBy adds the plugin's discovery marker to a spec's application
// folder (set SourcePath first), so that Argo CD picks the plugin of role by
// discovery.
func (s *Suite) DiscoveredBy(c *dsl.Context, role Role) *dsl.Context {
	p := s.Plugin(role)
	if p.DiscoverFileName != "" {
		c.File(path.Join(c.AppPath(), p.DiscoverFileName), []byte{})
	}
	return c
}
