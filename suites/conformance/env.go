package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/onsi/gomega"
)

// The ENV family: how the parameters an Application sets, and the build
// environment, reach the plugin (proposal: "How will the CMP know what
// parameter values are set?"; Argo CD docs: build environment).

var envParametersJSON = Check{
	ID: "ENV-001", Title: "ARGOCD_APP_PARAMETERS carries the Application's parameters",
	Area: Environment, Level: Core, Versions: ">=2.6.0", Roles: []Role{RoleParameterized},
	Upstream: []string{"argoproj/argo-cd#9216"},
	Test: func(ctx context.Context, s *Suite) {
		params := v1alpha1.ApplicationSourcePluginParameters{
			str("s1", "v1"), arr("a1", "x", "y"), mp("m1", map[string]string{"k": "v", "k2": "v2"}),
		}
		r := paramsSpec(ctx, s, "env-json", nil, params...)
		// Compare parsed JSON: Argo CD serialises through a map, so key order
		// differs from the proposal's example and must not matter.
		want, err := json.Marshal(params)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		var got, exp any
		gomega.Expect(json.Unmarshal([]byte(r.Parameters), &got)).To(gomega.Succeed(), "ARGOCD_APP_PARAMETERS is not JSON: %q", r.Parameters)
		gomega.Expect(json.Unmarshal(want, &exp)).To(gomega.Succeed())
		gomega.Expect(got).To(gomega.Equal(exp), "ARGOCD_APP_PARAMETERS = %s, want %s", r.Parameters, want)
	},
}

var envParamNames = Check{
	ID: "ENV-002", Title: "string, array and map parameters arrive as PARAM_<NAME>, PARAM_<NAME>_<i>, PARAM_<NAME>_<KEY>",
	Area: Environment, Level: Core, Versions: ">=2.6.0", Roles: []Role{RoleParameterized},
	Test: func(ctx context.Context, s *Suite) {
		r := paramsSpec(ctx, s, "env-names", nil,
			str("s1", "v1"), arr("a1", "x", "y"), mp("m1", map[string]string{"k": "v"}))
		expectEnv(r, map[string]string{"PARAM_S1": "v1", "PARAM_A1_0": "x", "PARAM_A1_1": "y", "PARAM_M1_K": "v"})
	},
}

var envEscaping = Check{
	ID: "ENV-003", Title: "parameter names and map keys are escaped: uppercased, [^A-Z0-9_] replaced by _",
	Area: Environment, Level: Core, Versions: ">=2.6.0", Roles: []Role{RoleParameterized},
	Test: func(ctx context.Context, s *Suite) {
		names := []string{"with-dash", "with.dot", "with/slash", "with space", "lower", "ünïcödé", "MiXeD_Case9"}
		var params []v1alpha1.ApplicationSourcePluginParameter
		want := map[string]string{}
		for i, n := range names {
			v := "value-" + strings.Repeat("x", i)
			params = append(params, str(n, v))
			want["PARAM_"+escaped(n)] = v
		}
		keys := map[string]string{"key-a": "1", "key.b": "2", "key/c": "3", "key d": "4", "kéy": "5"}
		params = append(params, mp("map.param", keys))
		for k, v := range keys {
			want["PARAM_"+escaped("map.param")+"_"+escaped(k)] = v
		}
		expectEnv(paramsSpec(ctx, s, "env-escape", nil, params...), want)
	},
}

var envCollision = Check{
	ID: "ENV-004", Title: "when two parameter names escape to the same variable, the later one wins",
	Area: Environment, Level: Core, Versions: ">=2.6.0", Roles: []Role{RoleParameterized},
	Test: func(ctx context.Context, s *Suite) {
		r := paramsSpec(ctx, s, "env-collide", nil, str("a-b", "first"), str("a.b", "second"))
		expectEnv(r, map[string]string{"PARAM_A_B": "second"})
	},
}

var envAllKinds = Check{
	ID: "ENV-005", Title: "a parameter that sets string, array and map sends all three",
	Area: Environment, Level: Core, Versions: ">=2.6.0", Roles: []Role{RoleParameterized},
	Upstream: []string{"argoproj/argo-cd#9216"},
	Test: func(ctx context.Context, s *Suite) {
		v := "s"
		p := v1alpha1.ApplicationSourcePluginParameter{Name: "multi", String_: &v,
			OptionalArray: &v1alpha1.OptionalArray{Array: []string{"a0"}},
			OptionalMap:   &v1alpha1.OptionalMap{Map: map[string]string{"k": "m"}}}
		expectEnv(paramsSpec(ctx, s, "env-multi", nil, p), map[string]string{"PARAM_MULTI": "s", "PARAM_MULTI_0": "a0", "PARAM_MULTI_K": "m"})
	},
}

var envPluginEnv = Check{
	ID: "ENV-006", Title: "plugin env entries arrive prefixed ARGOCD_ENV_, with build variables substituted",
	Area: Environment, Level: Core, Versions: ">=2.4.0", Roles: []Role{RoleParameterized},
	Upstream: []string{"argoproj/argo-cd#9319"},
	Test: func(ctx context.Context, s *Suite) {
		r := paramsSpec(ctx, s, "env-plugin", map[string]string{"FOO": "bar", "WITH_EQ": "a=b", "SUBST": "$ARGOCD_APP_NAME-x"})
		expectEnv(r, map[string]string{"ARGOCD_ENV_FOO": "bar", "ARGOCD_ENV_WITH_EQ": "a=b", "ARGOCD_ENV_SUBST": r.App.Name() + "-x"})
	},
}

var envBuildEnv = Check{
	ID: "ENV-007", Title: "the build environment variables are present and right",
	Area: Environment, Level: Core, Roles: []Role{RoleParameterized},
	Upstream: []string{"argoproj/argo-cd#21586"},
	Test: func(ctx context.Context, s *Suite) {
		r := paramsSpec(ctx, s, "env-build", nil)
		rev := r.App.Revision()
		want := map[string]string{
			"ARGOCD_APP_NAME": r.App.Name(), "ARGOCD_APP_NAMESPACE": r.App.Name(), "ARGOCD_APP_REVISION": rev,
			"ARGOCD_APP_SOURCE_REPO_URL": r.App.RepoURL(), "ARGOCD_APP_SOURCE_PATH": ".", "ARGOCD_APP_SOURCE_TARGET_REVISION": "main",
		}
		if atLeast(s.ArgoCDVersion, "2.9.0") {
			want["ARGOCD_APP_REVISION_SHORT"] = rev[:7]
		}
		if atLeast(s.ArgoCDVersion, "3.0.0") {
			want["ARGOCD_APP_PROJECT_NAME"] = "default"
		}
		expectEnv(r, want)
		// KUBE_VERSION's format changed across releases (text.SemVer, raw,
		// Major.Minor.Patch): only the cluster's major.minor is stable.
		kv, err := semver.NewVersion(s.Env.KubernetesVersion)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the cluster's version %q", s.Env.KubernetesVersion)
		gomega.Expect(r.Env["KUBE_VERSION"]).To(gomega.MatchRegexp(fmt.Sprintf(`^v?%d\.%d(\.|$)`, kv.Major(), kv.Minor())), "KUBE_VERSION (cluster %s)", s.Env.KubernetesVersion)
		apis := strings.Split(r.Env["KUBE_API_VERSIONS"], ",")
		for _, want := range []string{"v1", "apps/v1"} {
			gomega.Expect(slices.Contains(apis, want)).To(gomega.BeTrue(), "KUBE_API_VERSIONS %q lacks %s", r.Env["KUBE_API_VERSIONS"], want)
		}
	},
}

var envEmptyValues = Check{
	ID: "ENV-008", Title: "empty values: v3 passes them as set and empty, v2 dropped them",
	Area: Environment, Level: Core, Versions: ">=2.6.0", Roles: []Role{RoleParameterized},
	Upstream: []string{"argoproj/argo-cd#18720", "argoproj/argo-cd#22096"},
	Test: func(ctx context.Context, s *Suite) {
		r := paramsSpec(ctx, s, "env-empty", map[string]string{"EMPTY": ""}, str("empty-string", ""), arr("one-empty", ""))
		names := []string{"PARAM_EMPTY_STRING", "PARAM_ONE_EMPTY_0", "ARGOCD_ENV_EMPTY"}
		for _, n := range names {
			if atLeast(s.ArgoCDVersion, "3.0.0") {
				gomega.Expect(r.Has(n)).To(gomega.BeTrue(), "%s should be set (to \"\") since v3.0 (#22096)", n)
				gomega.Expect(r.Env[n]).To(gomega.BeEmpty(), "%s", n)
			} else {
				gomega.Expect(r.Has(n)).To(gomega.BeFalse(), "%s should be unset before v3.0 (#18720)", n)
			}
		}
	},
}

var envBuildEnvWins = Check{
	ID: "ENV-009", Title: "a parameter named like a build variable does not override it (the proposal's 'build environment wins')",
	Area: Environment, Level: Core, Versions: ">=2.6.0", Roles: []Role{RoleParameterized},
	// Argo CD keeps the rule by its PARAM_ prefix (a parameter never
	// produces ARGOCD_APP_NAME); what breaks it is a plugin's own wrapper
	// exporting parameters under their names (witness sidecar-mis-escapes).
	Upstream: []string{"argoproj/argo-cd#9216"},
	Test: func(ctx context.Context, s *Suite) {
		r := paramsSpec(ctx, s, "env-wins", nil, str("argocd-app-name", "overridden"), str("ARGOCD_APP_NAMESPACE", "overridden"))
		expectEnv(r, map[string]string{"ARGOCD_APP_NAME": r.App.Name(), "ARGOCD_APP_NAMESPACE": r.App.Name(),
			"PARAM_ARGOCD_APP_NAME": "overridden", "PARAM_ARGOCD_APP_NAMESPACE": "overridden"})
	},
}

// atLeast compares an Argo CD version with a minimum.
func atLeast(version, minimum string) bool {
	v, err := semver.NewVersion(version)
	if err != nil {
		return false
	}
	return !v.LessThan(semver.MustParse(minimum))
}
