package conformance

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
)

// The SEC family: parameter values are hostile input. They must reach the
// plugin byte for byte and execute nothing.

// hostileValues are values a shell would act on; canary is a file that exists
// only if one of them was executed.
func hostileValues(canary string) map[string]string {
	return map[string]string{
		"subst":      "$(touch " + canary + ")",
		"backticks":  "`touch " + canary + "`",
		"semicolon":  "x; touch " + canary,
		"pipe":       "x | touch " + canary,
		"and":        "x && touch " + canary,
		"newlines":   "line one\nline two\n$(touch " + canary + ")\n",
		"quotes":     `"double" 'single' \"escaped\" \' $HOME ${HOME}`,
		"globs":      "* ? [a-z] ~ ../../etc/passwd",
		"binaryish":  "\x01\x02\x1b[31mred\x1b[0m\x7f\u0085\u009f\u00ff\u2028\u2029\ufeff\ufffd 😀 end",
		"equals":     "a=b=c",
		"printf-fmt": "%s %n %x %%",
	}
}

var secHostileValues = Check{
	ID: "SEC-001", Title: "hostile parameter values reach the plugin byte-exact and execute nothing",
	Needs: []dsl.Ability{dsl.AbilityPluginFiles},
	Area:  Security, Level: Core, Versions: ">=2.6.0", Roles: []Role{RoleParameterized},
	Test: func(ctx context.Context, s *Suite) {
		canary := newCanary()
		values := hostileValues(canary)
		var params []v1alpha1.ApplicationSourcePluginParameter
		want := map[string]string{}
		for name, v := range values {
			params = append(params, str(name, v))
			want["PARAM_"+escaped(name)] = v
		}
		params = append(params, arr("hostile-array", values["subst"], values["backticks"]),
			mp("hostile-map", map[string]string{"k": values["semicolon"]}))
		want["PARAM_HOSTILE_ARRAY_0"], want["PARAM_HOSTILE_ARRAY_1"] = values["subst"], values["backticks"]
		want["PARAM_HOSTILE_MAP_K"] = values["semicolon"]
		r := paramsSpec(ctx, s, "sec-hostile", nil, params...)
		// The canary is looked for where the plugin runs (this host, or its
		// container). Byte-exact values prove the same on any runtime.
		expectNoCanary(ctx, s, RoleParameterized, canary)
		// Byte-exact values also prove no quoting, splitting, expansion or
		// printf formatting happened on the way.
		expectEnv(r, want)
	},
}

var secLargeValue = Check{
	ID: "SEC-002", Title: "a 64 KiB parameter value reaches the plugin byte-exact",
	Area: Security, Level: Core, Versions: ">=2.6.0", Roles: []Role{RoleParameterized},
	Test: func(ctx context.Context, s *Suite) {
		// One line a shell would execute, then digits to 64 KiB: a plugin
		// that passes values through a shell mangles it at once. Hostile
		// lines all the way (3,000 command substitutions) made a shell
		// witness fork 6,000 times, over 20 s on a loaded 2-core machine, so
		// the API's deadline, not the mangling, ended it; SEC-001 is the
		// check of hostile values.
		var b strings.Builder
		b.WriteString("000000 $(x) `y` ; \n")
		for i := 1; b.Len() < 64<<10; i++ {
			fmt.Fprintf(&b, "%06d", i)
		}
		big := b.String()[:64<<10]
		r := paramsSpec(ctx, s, "sec-large", nil, str("large", big))
		expectEnv(r, map[string]string{"PARAM_LARGE": big})
	},
}

// planted holds every canary this process has planted. A canary written in
// a plugin's container was written because a hostile value of the check that
// planted it was executed; that check judges it. Another check that finds it
// later (PLUG-011) was handed work of a deleted application: its generation
// was still queued in the repo-server when the application went, and ran
// during the next spec (seen in CI: a witness blamed by PLUG-011 for the
// canary PLUG-006's hostile value made it write).
var planted sync.Map

// newCanary names a canary file where the plugin runs and records it as
// planted; the spec's clean-up removes it from this host.
func newCanary() string {
	canary := filepath.Join(os.TempDir(), dsl.UniqueName("cmpc-canary"))
	planted.Store(canary, true)
	ginkgo.DeferCleanup(func() { os.Remove(canary) })
	return canary
}

// withoutPlanted splits paths into those no check planted and the canaries
// some check did.
func withoutPlanted(paths []string) (rest, canaries []string) {
	for _, p := range paths {
		if _, ok := planted.Load(p); ok {
			canaries = append(canaries, p)
		} else {
			rest = append(rest, p)
		}
	}
	return rest, canaries
}

// expectNoCanary fails if canary exists where role's plugin runs: a value
// was executed.
func expectNoCanary(ctx context.Context, s *Suite, role Role, canary string) {
	found, err := s.Env.PluginFileExists(ctx, s.Plugin(role).FullName(), canary)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	gomega.Expect(found).To(gomega.BeFalse(), "a parameter value was executed: %s exists where plugin %s runs", canary, s.Plugin(role).FullName())
}
