package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	repoapiclient "github.com/argoproj/argo-cd/v3/reposerver/apiclient"
	"github.com/onsi/gomega"

	"github.com/cmp-conformance/cmp-conformance/plugins/sidecar"
)

// Announcement is one parameter announcement as the API returns it.
type Announcement = sidecar.Announcement

// StaticContract is what the parameterized role announces statically: one
// announcement per field of the proposal's schema. plugins/sidecar/plugin.yaml
// declares exactly this (a unit test keeps them equal).
func StaticContract() []Announcement {
	return []Announcement{
		{Name: "string-param", Title: "STRING PARAM", Tooltip: "A string with a default, required.", Required: true, String: "default-string"},
		{Name: "number-param", Title: "NUMBER PARAM", Tooltip: "A number, encoded as a string.", ItemType: "number", String: "42"},
		{Name: "boolean-param", Title: "BOOLEAN PARAM", ItemType: "boolean", String: "true"},
		{Name: "array-param", Title: "ARRAY PARAM", Tooltip: "An array with defaults.", CollectionType: "array", Array: []string{"first", "second"}},
		{Name: "map-param", Title: "MAP PARAM", Tooltip: "A map with defaults.", CollectionType: "map", Map: map[string]string{"key-one": "value-one", "key.two": "value-two"}},
		{Name: "untyped-param", Title: "UNTYPED PARAM", Tooltip: "No collectionType; the proposal says it means string.", String: "untyped-default"},
	}
}

// dynamicContract is what the parameterized role announces dynamically for
// fixtures/apps/params-app: a map per component folder, with its defaults.
func dynamicContract() []Announcement {
	return []Announcement{
		{Name: "alpha-values", Title: "ALPHA VALUES", Tooltip: "Values of component alpha", CollectionType: "map", Map: map[string]string{"replicas": "1", "image": "alpha:1.0"}},
		{Name: "beta-values", Title: "BETA VALUES", Tooltip: "Values of component beta", CollectionType: "map", Map: map[string]string{"image": "beta:2.0"}},
	}
}

// announcements asks appdetails for the announcements of a fresh source of
// role's plugin, with the given parameters in the source.
func announcements(ctx context.Context, s *Suite, role Role, params ...v1alpha1.ApplicationSourcePluginParameter) ([]Announcement, error) {
	c := s.DiscoveredBy(s.Given(ctx).NamePrefix("ann").Path("params-app"), role)
	if len(params) > 0 {
		c.Parameters(params...)
	}
	c.When()
	app := c.Application()
	details, err := s.Env.AppDetails(ctx, app.Name, *app.Spec.Source)
	if err != nil {
		return nil, err
	}
	if details.Type != string(v1alpha1.ApplicationSourceTypePlugin) || details.Plugin == nil {
		return nil, fmt.Errorf("appdetails says source type %q, not a plugin", details.Type)
	}
	return AnnouncementsFromAPI(details.Plugin.ParametersAnnouncement), nil
}

// AnnouncementsFromAPI reads announcements as the repo-server and the API
// server return them.
func AnnouncementsFromAPI(in []*repoapiclient.ParameterAnnouncement) []Announcement {
	out := []Announcement{}
	for _, a := range in {
		out = append(out, Announcement{Name: a.Name, Title: a.Title, Tooltip: a.Tooltip, Required: a.Required, ItemType: a.ItemType,
			CollectionType: a.CollectionType, String: a.String_, Array: a.Array, Map: a.Map})
	}
	return out
}

func byName(anns []Announcement) map[string]Announcement {
	out := map[string]Announcement{}
	for _, a := range anns {
		out[a.Name] = a
	}
	return out
}

func names(anns []Announcement) []string {
	var out []string
	for _, a := range anns {
		out = append(out, a.Name)
	}
	return out
}

// expectAnnounced asserts each wanted announcement is present, field for field.
func expectAnnounced(got []Announcement, want []Announcement) {
	have := byName(got)
	var diffs []string
	for _, w := range want {
		g, ok := have[w.Name]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("%s is not announced", w.Name))
			continue
		}
		gj, _ := json.Marshal(g)
		wj, _ := json.Marshal(w)
		if string(gj) != string(wj) {
			diffs = append(diffs, fmt.Sprintf("%s announced as %s, want %s", w.Name, gj, wj))
		}
	}
	gomega.Expect(diffs).To(gomega.BeEmpty(), "announced: %v", names(got))
}

func mustAnnounce(ctx context.Context, s *Suite, params ...v1alpha1.ApplicationSourcePluginParameter) []Announcement {
	anns, err := announcements(ctx, s, RoleParameterized, params...)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "POST /api/v1/repositories/{repo}/appdetails")
	return anns
}

var annStatic = Check{
	ID: "ANN-001", Title: "static announcements are announced with every field intact",
	Area: Announcements, Level: Core, Versions: ">=2.6.0", Requires: []Feature{StaticParameters}, Roles: []Role{RoleParameterized},
	Upstream: []string{"argoproj/argo-cd#9216"},
	Test: func(ctx context.Context, s *Suite) {
		expectAnnounced(mustAnnounce(ctx, s), StaticContract())
	},
}

var annDynamic = Check{
	ID: "ANN-002", Title: "dynamic announcements, derived from the application folder, are announced",
	Area: Announcements, Level: Core, Versions: ">=2.6.0", Requires: []Feature{DynamicParameters}, Roles: []Role{RoleParameterized},
	Test: func(ctx context.Context, s *Suite) {
		expectAnnounced(mustAnnounce(ctx, s), dynamicContract())
	},
}

var annBoth = Check{
	ID: "ANN-003", Title: "static and dynamic announcements are announced together, each exactly once",
	Area: Announcements, Level: Core, Versions: ">=2.6.0", Requires: []Feature{StaticParameters, DynamicParameters}, Roles: []Role{RoleParameterized},
	Test: func(ctx context.Context, s *Suite) {
		got := mustAnnounce(ctx, s)
		want := append(append(StaticContract(), dynamicContract()...), Announcement{Name: sidecar.EchoAnnouncement})
		counts := map[string]int{}
		for _, a := range got {
			counts[a.Name]++
		}
		for _, w := range want {
			gomega.Expect(counts[w.Name]).To(gomega.Equal(1), "%s announced %d times in %v", w.Name, counts[w.Name], names(got))
		}
		gomega.Expect(got).To(gomega.HaveLen(len(want)), "announced %v", names(got))
	},
}

var annDynamicGetsParameters = Check{
	ID: "ANN-004", Title: "the dynamic command receives the application's current parameters",
	Area: Announcements, Level: Core, Versions: ">=2.6.0", Requires: []Feature{DynamicParameters}, Roles: []Role{RoleParameterized},
	Test: func(ctx context.Context, s *Suite) {
		params := v1alpha1.ApplicationSourcePluginParameters{arr(sidecar.IgnoreParameter, "alpha"), str("string-param", "set")}
		got := mustAnnounce(ctx, s, params...)
		have := byName(got)
		// The proposal's ignore-list example: the parameter changes what is announced.
		gomega.Expect(have).NotTo(gomega.HaveKey("alpha-values"), "alpha is in %s but still announced", sidecar.IgnoreParameter)
		gomega.Expect(have).To(gomega.HaveKey("beta-values"), "beta-values (not ignored) is not announced")
		var received, sent any
		gomega.Expect(json.Unmarshal([]byte(have[sidecar.EchoAnnouncement].String), &received)).To(gomega.Succeed(),
			"the dynamic command received ARGOCD_APP_PARAMETERS %q", have[sidecar.EchoAnnouncement].String)
		data, _ := json.Marshal(params)
		_ = json.Unmarshal(data, &sent)
		gomega.Expect(received).To(gomega.Equal(sent))
	},
}

var annUntypedIsString = Check{
	ID: "ANN-005", Title: "an announcement without collectionType is a string announcement",
	Area: Announcements, Level: Core, Versions: ">=2.6.0", Requires: []Feature{StaticParameters}, Roles: []Role{RoleParameterized},
	Upstream: []string{"argoproj/argo-cd#9216"},
	Test: func(ctx context.Context, s *Suite) {
		a, ok := byName(mustAnnounce(ctx, s))["untyped-param"]
		gomega.Expect(ok).To(gomega.BeTrue(), "untyped-param is not announced")
		gomega.Expect(a.CollectionType).To(gomega.BeElementOf("", "string"), "collectionType")
		// Docs: "It will not be inferred from the presence of an array or map field."
		gomega.Expect(a.Array).To(gomega.BeEmpty(), "a string announcement carries an array default")
		gomega.Expect(a.Map).To(gomega.BeEmpty(), "a string announcement carries a map default")
		gomega.Expect(a.String).To(gomega.Equal("untyped-default"))
	},
}

var annOrder = Check{
	ID: "ANN-009", Title: "static announcements come before dynamic ones, as in the proposal's combined example",
	Area: Announcements, Level: Provisional, Versions: ">=2.6.0", Requires: []Feature{StaticParameters, DynamicParameters}, Roles: []Role{RoleParameterized},
	// Provisional: the docs do not document an order; the proposal's example
	// lists static first, while cmp-server appends static after dynamic
	// ("static should take precedence by being later") and the UI picks the
	// first of duplicate names.
	Upstream: []string{"argoproj/argo-cd#9216"},
	Test: func(ctx context.Context, s *Suite) {
		got := names(mustAnnounce(ctx, s))
		first := len(StaticContract())
		gomega.Expect(len(got)).To(gomega.BeNumerically(">", first))
		gomega.Expect(strings.Join(got[:first], ",")).To(gomega.Equal(strings.Join(names(StaticContract()), ",")), "order %v", got)
	},
}
