package conformance

import (
	"fmt"
	"strings"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
)

// NothingToJudge says why the binding's extension gives c nothing to judge
// (Check.NothingToJudge), or "": known before anything runs, so a parallel
// run does not expect a witness to record a check that cannot apply to it.
func (b Binding) NothingToJudge(c Check) string {
	if c.NothingToJudge == nil {
		return ""
	}
	for _, role := range c.Roles {
		if s, ok := b.Subjects[role]; ok && s.Extension != nil {
			return c.NothingToJudge(s.Extension)
		}
	}
	return ""
}

// notApplicable says why a check cannot run on this runtime with b's
// plugins, or "": a plugin of a role it needs cannot run here (for AnyRole,
// none can), or the runtime lacks an ability it needs.
func notApplicable(env *dsl.Env, b Binding, c Check) string {
	for _, role := range c.Roles {
		if s := b.Subjects[role]; s.Unavailable != "" {
			return fmt.Sprintf("the %s plugin %s cannot run here: %s", role, s.Plugin.FullName(), s.Unavailable)
		}
	}
	if why := b.NothingToJudge(c); why != "" {
		return why
	}
	var why []string
	for _, role := range c.AnyRole {
		s, ok := b.Subjects[role]
		if !ok {
			continue
		}
		if s.Unavailable == "" {
			why = nil
			break
		}
		why = append(why, fmt.Sprintf("the %s plugin %s cannot run here: %s", role, s.Plugin.FullName(), s.Unavailable))
	}
	if len(why) > 0 {
		return strings.Join(why, "; ")
	}
	return c.Lacks(env)
}

// runtimeLimited says whether a check that applies to the version cannot
// run on the runtime (notApplicable).
func runtimeLimited(cfg Config, b Binding, c Check) bool {
	env := cfg.Env()
	if env == nil {
		return false
	}
	if ok, err := c.AppliesTo(env.ArgoCDVersion); err != nil || !ok {
		return false
	}
	// An extension without tests of what a check judges is no gap of the
	// runtime: the check does not apply to it, anywhere.
	if b.NothingToJudge(c) != "" {
		return false
	}
	return notApplicable(env, b, c) != ""
}
