package conformance

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"sigs.k8s.io/yaml"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
)

var plugValuesIntact = Check{
	ID: "PLUG-014", Title: "a parameter the sample shows in its output carries any value there intact (spaces, quotes, =, ',', ':', unicode, a trailing newline), array items and map entries too, or the plugin refuses it with its own error",
	Area: Plugin, Level: Core, Versions: ">=2.6.0", Roles: []Role{RoleSubject}, Requires: []Feature{Parameters},
	Upstream: []string{"argoproj/argo-cd#9216"},
	Test: func(ctx context.Context, s *Suite) {
		// Derived from the plugin itself, not its author's list: set every
		// text parameter it announces to a plain fresh value; those whose
		// value then shows in the output are the ones it carries, and each
		// must carry a value as real users type it, unchanged. The seed's
		// `echo "$ARGUMENTS" | xargs helm template .` splits such values.
		for _, sm := range s.Certification().Samples {
			ginkgo.By("sample " + sm.Name)
			c := sampleApp(ctx, s, sm, "plug-intact-ann", true)
			c.When()
			app := c.Application()
			details, err := s.Env.AppDetails(ctx, app.Name, *app.Spec.Source)
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "sample %s: appdetails (the UI's parameter form)", sm.Name)
			gomega.Expect(details.Plugin).NotTo(gomega.BeNil(), "sample %s: appdetails says source type %q, not a plugin", sm.Name, details.Type)
			plainSet := intactValues(AnnouncementsFromAPI(details.Plugin.ParametersAnnouncement), sm.Parameters, dsl.UniqueName("cmpc-intact"), false)
			if len(plainSet) == 0 {
				observe("sample %s: it announces no text parameter", sm.Name)
				continue
			}
			out, err := generateWith(ctx, s, sm, plainSet.params(sm.Parameters), "plug-intact")
			if err != nil {
				observe("sample %s: with a plain value for each text parameter it did not generate (%s): nothing shows which it carries", sm.Name, errLine(err))
				continue
			}
			shown := plainSet.shownIn(textsOf(out))
			if len(shown) == 0 {
				observe("sample %s: no text parameter's value shows in its output: none is judged", sm.Name)
				continue
			}
			observe("sample %s: its output shows %s", sm.Name, strings.Join(shown.names(), ", "))
			typed := intactValues(shown.announcements(), nil, dsl.UniqueName("cmpc-intact"), true)
			out, err = generateWith(ctx, s, sm, typed.params(sm.Parameters), "plug-intact-typed")
			if err != nil {
				if brokeOutput.MatchString(err.Error()) {
					gomega.Expect(fmt.Errorf("sample %s: values as users type them broke what the plugin printed (pasted into YAML unescaped): %s", sm.Name, errLine(err))).NotTo(gomega.HaveOccurred())
				}
				observe("sample %s: the plugin refused values as users type them with its own error: %s", sm.Name, errLine(err))
				continue
			}
			gomega.Expect(typed.lostIn(textsOf(out))).To(gomega.BeEmpty(), "sample %s: values as users type them did not arrive intact", sm.Name)
		}
	},
}

// brokeOutput matches Argo CD's words for a plugin output it cannot read.
// (v3: "failed to convert CMP manifests to unstructured objects"; older
// releases: "failed to unmarshal manifest").
var brokeOutput = regexp.MustCompile(`failed to convert CMP manifests to unstructured objects|failed to unmarshal manifest`)

// typedTail is what users type beyond a plain word: spaces, both quotes,
// '=', ',', ':', unicode and a trailing newline.
const typedTail = ` a b "double" 'single' k=v x,y key: value ünïcødé ✓` + "\n"

// intactValue is one value given to a parameter: the whole of a string,
// an array item, or a map entry.
type intactValue struct {
	param, where, value string
	ann                 Announcement
}

type intactSet []intactValue

// intactValues gives each text parameter of anns (item type string or
// none) fresh values, marked by base: plain words, or typed ones.
func intactValues(anns []Announcement, sample []v1alpha1.ApplicationSourcePluginParameter, base string, typed bool) intactSet {
	var out intactSet
	value := func(i int) string {
		v := fmt.Sprintf("%s-%d", base, i)
		if typed {
			v += typedTail
		}
		return v
	}
	for _, a := range anns {
		if a.Name == "" || (a.ItemType != "" && a.ItemType != "string") {
			continue
		}
		switch a.CollectionType {
		case "array":
			for j := 0; j < 2; j++ {
				out = append(out, intactValue{param: a.Name, where: fmt.Sprintf("item %d", j), value: value(len(out)), ann: a})
			}
		case "map":
			keys := slices.Sorted(maps.Keys(a.Map))
			if i := slices.IndexFunc(sample, func(p v1alpha1.ApplicationSourcePluginParameter) bool { return p.Name == a.Name }); i >= 0 && sample[i].OptionalMap != nil {
				keys = slices.Sorted(maps.Keys(sample[i].OptionalMap.Map))
			}
			if len(keys) == 0 {
				keys = []string{"key"}
			}
			for _, k := range keys {
				out = append(out, intactValue{param: a.Name, where: "entry " + k, value: value(len(out)), ann: a})
			}
		default:
			out = append(out, intactValue{param: a.Name, where: "", value: value(len(out)), ann: a})
		}
	}
	return out
}

// params is sample with each parameter of the set replaced by its values.
func (s intactSet) params(sample []v1alpha1.ApplicationSourcePluginParameter) []v1alpha1.ApplicationSourcePluginParameter {
	byParam := map[string][]intactValue{}
	var order []string
	for _, v := range s {
		if _, ok := byParam[v.param]; !ok {
			order = append(order, v.param)
		}
		byParam[v.param] = append(byParam[v.param], v)
	}
	out := slices.DeleteFunc(slices.Clone(sample), func(p v1alpha1.ApplicationSourcePluginParameter) bool { _, set := byParam[p.Name]; return set })
	for _, name := range order {
		vs := byParam[name]
		switch vs[0].ann.CollectionType {
		case "array":
			var items []string
			for _, v := range vs {
				items = append(items, v.value)
			}
			out = append(out, arr(name, items...))
		case "map":
			m := map[string]string{}
			for _, v := range vs {
				m[strings.TrimPrefix(v.where, "entry ")] = v.value
			}
			out = append(out, mp(name, m))
		default:
			out = append(out, str(name, vs[0].value))
		}
	}
	return out
}

// shownIn is the subset whose values appear in texts, with their
// announcements, whole parameters: one item shown makes its parameter's.
func (s intactSet) shownIn(texts []string) intactSet {
	shown := map[string]bool{}
	for _, v := range s {
		if slices.ContainsFunc(texts, func(t string) bool { return strings.Contains(t, v.value) }) {
			shown[v.param] = true
		}
	}
	return slices.DeleteFunc(slices.Clone(s), func(v intactValue) bool { return !shown[v.param] })
}

func (s intactSet) names() []string {
	var out []string
	for _, v := range s {
		if !slices.Contains(out, v.param) {
			out = append(out, v.param)
		}
	}
	return out
}

func (s intactSet) announcements() []Announcement {
	var out []Announcement
	for _, v := range s {
		if !slices.ContainsFunc(out, func(a Announcement) bool { return a.Name == v.param }) {
			out = append(out, v.ann)
		}
	}
	return out
}

// lostIn says, for each value no text holds whole, what arrived instead
// (the text holding its plain first word), or that nothing did.
func (s intactSet) lostIn(texts []string) []string {
	var out []string
	for _, v := range s {
		if slices.ContainsFunc(texts, func(t string) bool { return strings.Contains(t, v.value) }) {
			continue
		}
		what := v.param
		if v.where != "" {
			what += " (" + v.where + ")"
		}
		head, _, _ := strings.Cut(v.value, " ")
		got := "nowhere"
		if i := slices.IndexFunc(texts, func(t string) bool { return strings.Contains(t, head) }); i >= 0 {
			got = fmt.Sprintf("as %q", texts[i])
		}
		out = append(out, fmt.Sprintf("%s = %q arrived %s", what, v.value, got))
	}
	return out
}

// textsOf are the strings of the manifests: every key and string value.
func textsOf(manifests []string) []string {
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case string:
			out = append(out, t)
		case map[string]any:
			for k, x := range t {
				out = append(out, k)
				walk(x)
			}
		case []any:
			for _, x := range t {
				walk(x)
			}
		}
	}
	for _, m := range manifests {
		var obj any
		if yaml.Unmarshal([]byte(m), &obj) == nil {
			walk(obj)
		}
	}
	return out
}

// generateWith creates sm's named application with params, unvalidated (a
// plugin may refuse them), and returns Argo CD's manifests or its error.
func generateWith(ctx context.Context, s *Suite, sm Sample, params []v1alpha1.ApplicationSourcePluginParameter, prefix string) ([]string, error) {
	ginkgo.GinkgoHelper()
	sm.Parameters = params
	return sampleApp(ctx, s, sm, prefix, true).When().CreateAppUnvalidated().Then().Expect(dsl.NoActionError()).Manifests(true)
}

// errLine is the first line of err: Argo CD's message, without the rest.
func errLine(err error) string {
	line, _, _ := strings.Cut(err.Error(), "\n")
	return line
}
