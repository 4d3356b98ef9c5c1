package conformance

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
)

// The HELM family: Helm as a plugin "must be on par with the native
// implementation" (proposal 001): the same chart, as a native Helm
// application and as a Helm-CMP application with the same settings, renders
// the same resources, announces what native Helm shows, and reports render
// errors the same way.

var helmUpstream = []string{"argoproj/argo-cd#9216"}

// helmSettings are an application's Helm settings, expressed natively
// (spec.source.helm) and as the Helm plugin's parameters.
type helmSettings struct {
	valueFiles []string
	values     string
	params     map[string]string
}

func (h helmSettings) native() v1alpha1.ApplicationSourceHelm {
	out := v1alpha1.ApplicationSourceHelm{ValueFiles: h.valueFiles, Values: h.values}
	for _, k := range slices.Sorted(maps.Keys(h.params)) {
		out.Parameters = append(out.Parameters, v1alpha1.HelmParameter{Name: k, Value: h.params[k]})
	}
	return out
}

func (h helmSettings) plugin() []v1alpha1.ApplicationSourcePluginParameter {
	var out []v1alpha1.ApplicationSourcePluginParameter
	if len(h.valueFiles) > 0 {
		out = append(out, arr("values-files", h.valueFiles...))
	}
	if h.values != "" {
		out = append(out, str("values", h.values))
	}
	if len(h.params) > 0 {
		out = append(out, mp("helm-parameters", h.params))
	}
	return out
}

// helmPair gives the Given of the native and the plugin application of one
// chart with the same settings.
func helmPair(ctx context.Context, s *Suite, chart string, h helmSettings) (native, plugin *dsl.Context) {
	native = s.Given(ctx).NamePrefix(chart + "-native").Path(chart)
	// Argo CD drops an empty spec.source.helm (NormalizeSource), and the
	// source type then comes from discovery, where any plugin discovering
	// Chart.yaml (the Helm plugin under test, or a witness) comes before
	// native Helm. The release name Argo CD uses anyway, the application's
	// name, keeps the application native whatever the settings.
	nh := h.native()
	nh.ReleaseName = native.Name()
	native.NativeHelm(nh)
	plugin = s.Given(ctx).NamePrefix(chart + "-cmp").Path(chart).Plugin(s.Plugin(RoleHelm).FullName())
	if p := h.plugin(); len(p) > 0 {
		plugin.Parameters(p...)
	}
	return native, plugin
}

// createBoth creates the native and the plugin application at once (each
// creation renders its application for the API server's validation) and
// expects both created.
func createBoth(native, plugin *dsl.Context) (n, p *dsl.Consequences) {
	ginkgo.GinkgoHelper()
	nativeCreated, pluginCreated := native.When().CreateAppInBackground(), plugin.When().CreateAppInBackground()
	return nativeCreated().Then().Expect(dsl.NoActionError()), pluginCreated().Then().Expect(dsl.NoActionError())
}

// layered exercises every source of values at once, in native order:
// values.yaml < value files in order < inline values < parameters (typed).
var layered = helmSettings{
	valueFiles: []string{"values-a.yaml", "values-b.yaml"},
	values:     "layer:\n  inline: inline\n",
	params: map[string]string{"layer.param": "param", "typed.count": "3", "typed.flag": "true",
		"typed.ratio": "0.5", "typed.none": "null", "typed.zero": "007", "replicaCount": "2"},
}

var helmRendersLikeNative = Check{
	ID: "HELM-001", Title: "a chart renders through the Helm plugin exactly as native Helm renders it (tracking metadata aside)",
	Area: Helm, Level: Core, Versions: ">=2.6.0", Roles: []Role{RoleHelm}, Upstream: helmUpstream,
	Test: func(ctx context.Context, s *Suite) {
		cases := []struct {
			chart string
			set   helmSettings
		}{
			{"helm-plain", layered}, {"helm-dep", helmSettings{}}, {"helm-crds", helmSettings{}},
			{"helm-capabilities", helmSettings{}}, {"helm-hooks", helmSettings{}},
		}
		for _, tc := range cases {
			ginkgo.By("rendering " + tc.chart + " both ways")
			n, p := helmPair(ctx, s, tc.chart, tc.set)
			native, plugin := createBoth(n, p)
			want, got := nativeAndPlugin(native, plugin, n.Name(), p.Name())
			gomega.Expect(len(want)).To(gomega.BeNumerically(">", 0), "native Helm rendered nothing for %s", tc.chart)
			gomega.Expect(manifestDiff(want, got)).To(gomega.BeEmpty(), "%s: the plugin's render differs from native Helm's (- native, + plugin)", tc.chart)
			// Timed against the reference only: the figure informs a
			// plugin's users, and a witness's proves nothing.
			if tc.chart == "helm-plain" && !s.binding.Witness {
				ginkgo.By("timing manifest generation both ways (an observation)")
				timeGeneration(native, plugin)
			}
		}
	},
}

var helmAnnouncesLikeNative = Check{
	ID: "HELM-002", Title: "the Helm plugin announces the parameters and value files native Helm shows (appdetails)",
	Area: Helm, Level: Core, Versions: ">=2.6.0", Requires: []Feature{DynamicParameters}, Roles: []Role{RoleHelm}, Upstream: helmUpstream,
	Test: func(ctx context.Context, s *Suite) {
		n, p := helmPair(ctx, s, "helm-plain", helmSettings{})
		n.When()
		p.When()
		nativeApp, pluginApp := n.Application(), p.Application()
		nd, err := s.Env.AppDetails(ctx, nativeApp.Name, *nativeApp.Spec.Source)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "native appdetails")
		gomega.Expect(nd.Helm).NotTo(gomega.BeNil(), "native appdetails has no helm section (type %q)", nd.Type)
		pd, err := s.Env.AppDetails(ctx, pluginApp.Name, *pluginApp.Spec.Source)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "plugin appdetails")
		gomega.Expect(pd.Plugin).NotTo(gomega.BeNil(), "plugin appdetails has no plugin section (type %q)", pd.Type)
		anns := AnnouncementsFromAPI(pd.Plugin.ParametersAnnouncement)
		have := byName(anns)
		wantParams := map[string]string{}
		for _, prm := range nd.Helm.Parameters {
			wantParams[prm.Name] = prm.Value
		}
		gomega.Expect(have).To(gomega.HaveKey("helm-parameters"), "announced %v", names(anns))
		gomega.Expect(have["helm-parameters"].Map).To(gomega.Equal(wantParams), "helm-parameters differ from native's parameters")
		gomega.Expect(have).To(gomega.HaveKey("values-files"), "announced %v", names(anns))
		gomega.Expect(have["values-files"].Array).To(gomega.Equal(nd.Helm.ValueFiles), "values-files differ from native's value files")
		gomega.Expect(have).To(gomega.HaveKey("values"), "announced %v", names(anns))
	},
}

// helmError is the helm CLI's error line inside a ComparisonError.
var helmError = regexp.MustCompile(`Error: (.+)`)

var helmErrorsLikeNative = Check{
	ID: "HELM-003", Title: "a render error surfaces as a ComparisonError carrying Helm's own message, as native Helm's does",
	Area: Helm, Level: Core, Versions: ">=2.6.0", Roles: []Role{RoleHelm}, Upstream: helmUpstream,
	Test: func(ctx context.Context, s *Suite) {
		n, p := helmPair(ctx, s, "helm-required", helmSettings{})
		required := regexp.MustCompile(`(?i)required`)
		native := n.When().CreateAppUnvalidated().Refresh(true).Then().Expect(dsl.NoActionError()).
			Expect(dsl.ErrorSurfaces("ComparisonError", required))
		plugin := p.When().CreateAppUnvalidated().Refresh(true).Then().Expect(dsl.NoActionError()).
			Expect(dsl.ErrorSurfaces("ComparisonError", required))
		var want string
		native.And(func(app *v1alpha1.Application) {
			m := helmError.FindStringSubmatch(dsl.ConditionMessage(app, "ComparisonError"))
			gomega.Expect(m).NotTo(gomega.BeNil(), "native error has no Helm message: %s", dsl.ConditionMessage(app, "ComparisonError"))
			want = m[1]
		})
		plugin.And(func(app *v1alpha1.Application) {
			got := dsl.ConditionMessage(app, "ComparisonError")
			observe("plugin error: %s", shortened(got))
			gomega.Expect(got).To(gomega.ContainSubstring(want), "the plugin's error lacks native Helm's message")
		})
	},
}

var helmParameterChange = Check{
	ID: "HELM-004", Title: "changing a Helm plugin parameter re-renders: a sync brings the new value",
	Area: Helm, Level: Core, Versions: ">=2.6.0", Roles: []Role{RoleHelm}, Upstream: helmUpstream,
	Test: func(ctx context.Context, s *Suite) {
		c := s.Given(ctx).NamePrefix("helm-change").Path("helm-plain").Plugin(s.Plugin(RoleHelm).FullName()).
			Parameters(mp("helm-parameters", map[string]string{"layer.param": "first"}))
		cm := c.Name() + "-layers"
		paramIs := func(want string) dsl.Expectation {
			return dsl.ResourceExists("v1", "ConfigMap", cm, func(obj *unstructured.Unstructured) error {
				if got, _, _ := unstructured.NestedString(obj.Object, "data", "param"); got != want {
					return fmt.Errorf("data.param is %q, want %q", got, want)
				}
				return nil
			})
		}
		c.When().CreateApp().Sync(false).
			Then().Expect(dsl.NoActionError()).
			ExpectWithin(s.Env.Timeouts.AppSynced, dsl.OperationPhaseIs("Succeeded")).
			ExpectWithin(s.Env.Timeouts.Settle, paramIs("first")).
			When().UpdateSpec(func(spec *v1alpha1.ApplicationSpec) {
			spec.Source.Plugin.Parameters = v1alpha1.ApplicationSourcePluginParameters{mp("helm-parameters", map[string]string{"layer.param": "second"})}
		}).Sync(false).
			Then().Expect(dsl.NoActionError()).
			ExpectWithin(s.Env.Timeouts.AppSynced, dsl.OperationPhaseIs("Succeeded")).
			ExpectWithin(s.Env.Timeouts.Settle, paramIs("second")).
			ExpectWithin(s.Env.Timeouts.Refresh, dsl.SyncStatusIs("Synced"))
	},
}

var helmHostileValues = Check{
	ID: "HELM-005", Title: "hostile Helm parameter values stay data: rendered as native Helm renders them, nothing executed",
	Needs: []dsl.Ability{dsl.AbilityPluginFiles},
	Area:  Helm, Level: Core, Versions: ">=2.6.0", Roles: []Role{RoleHelm}, Upstream: helmUpstream,
	Test: func(ctx context.Context, s *Suite) {
		canary := filepath.Join(os.TempDir(), dsl.UniqueName("cmpc-helm-canary"))
		ginkgo.DeferCleanup(func() { os.Remove(canary) })
		// No strvals syntax (, = [ ] { }) and no $VAR: those mean something
		// to --set and to Argo CD's own substitution, natively too.
		hostile := map[string]string{
			"hostile.subst": "$(touch " + canary + ")", "hostile.ticks": "`touch " + canary + "`",
			"hostile.semi": "x; touch " + canary, "hostile.quote": `'"; touch ` + canary + `; "'`,
		}
		n, p := helmPair(ctx, s, "helm-plain", helmSettings{params: hostile})
		native, plugin := createBoth(n, p)
		want, got := nativeAndPlugin(native, plugin, n.Name(), p.Name())
		gomega.Expect(manifestDiff(want, got)).To(gomega.BeEmpty(),
			"hostile values render differently (- native, + plugin)")
		data := configMapData(got, "APP-layers")
		for k, v := range hostile {
			key := "hostile-" + strings.TrimPrefix(k, "hostile.")
			gomega.Expect(data).To(gomega.HaveKeyWithValue(key, v), "%s is not rendered byte-exact", k)
		}
		// The canary is looked for where the plugin runs (this host, or its
		// container). Byte-exact values prove the same on any runtime.
		expectNoCanary(ctx, s, RoleHelm, canary)
	},
}
