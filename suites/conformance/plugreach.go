package conformance

import (
	"context"
	"slices"
	"strings"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
)

var plugParameterReaches = Check{
	ID: "PLUG-012", Title: "every parameter its author says reaches the output does: set to a fresh value, that value is generated",
	Area: Plugin, Level: Core, Versions: ">=2.6.0", Roles: []Role{RoleSubject}, Requires: []Feature{ParameterOutput},
	Upstream: []string{"argoproj/argo-cd#9216"},
	Test: func(ctx context.Context, s *Suite) {
		// A parameter the UI offers but the plugin never reads is a setting
		// users change to no effect. Fresh values (letters, digits and '-',
		// text for any template) cannot be in the sample already.
		for _, sm := range s.Certification().Samples {
			if len(sm.Reaches) == 0 {
				continue
			}
			ginkgo.By("sample " + sm.Name + ", parameters " + strings.Join(sm.Reaches, ", "))
			marked, markers := withMarkers(sm, dsl.UniqueName)
			out := strings.Join(generate(ctx, s, marked, "plug-reach"), "\n")
			var missing []string
			for _, name := range sm.Reaches {
				if !strings.Contains(out, markers[name]) {
					missing = append(missing, name+"="+markers[name])
				}
			}
			gomega.Expect(missing).To(gomega.BeEmpty(), "sample %s: these parameters, set to fresh values, do not reach what the plugin generates", sm.Name)
		}
	},
}

// withMarkers is sm with each parameter of Reaches set to a fresh string
// (made by unique), replacing the sample's own value or added to them.
func withMarkers(sm Sample, unique func(string) string) (Sample, map[string]string) {
	markers := map[string]string{}
	params := slices.Clone(sm.Parameters)
	for _, name := range sm.Reaches {
		markers[name] = unique("cmpc-reach")
		p := str(name, markers[name])
		if i := slices.IndexFunc(params, func(q v1alpha1.ApplicationSourcePluginParameter) bool { return q.Name == name }); i >= 0 {
			params[i] = p
		} else {
			params = append(params, p)
		}
	}
	sm.Parameters = params
	return sm, markers
}
