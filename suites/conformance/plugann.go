package conformance

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
)

var plugAnnouncements = Check{
	ID: "PLUG-010", Title: "every sample's parameter announcements are well formed: named once, typed as the proposal says, defaults of their type",
	Area: Plugin, Level: Core, Versions: ">=2.6.0", Roles: []Role{RoleSubject}, Requires: []Feature{Parameters},
	Upstream: []string{"argoproj/argo-cd#9216"},
	Test: func(ctx context.Context, s *Suite) {
		// Asked as the UI asks (appdetails), for each sample as deployed: a
		// dynamic command that fails or prints something else than a JSON
		// list of announcements fails here.
		for _, sm := range s.Certification().Samples {
			ginkgo.By("sample " + sm.Name)
			c := sampleApp(ctx, s, sm, "plug-ann", true)
			c.When()
			app := c.Application()
			details, err := s.Env.AppDetails(ctx, app.Name, *app.Spec.Source)
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "sample %s: appdetails (the UI's parameter form)", sm.Name)
			gomega.Expect(details.Plugin).NotTo(gomega.BeNil(), "sample %s: appdetails says source type %q, not a plugin", sm.Name, details.Type)
			anns := AnnouncementsFromAPI(details.Plugin.ParametersAnnouncement)
			gomega.Expect(AnnouncementProblems(anns)).To(gomega.BeEmpty(), "sample %s: announcements %v are not well formed", sm.Name, names(anns))
		}
	},
}

var plugNoLeftovers = Check{
	ID: "PLUG-011", Title: "generating the samples leaves nothing in the plugin's container outside its working copies",
	Needs: []dsl.Ability{dsl.AbilityPluginLeftovers},
	Area:  Plugin, Level: Core, Versions: ">=2.6.0", Roles: []Role{RoleSubject}, Requires: []Feature{Image},
	Test: func(ctx context.Context, s *Suite) {
		// A file left in /tmp, or anywhere else of the container, is read by
		// the next application's generation: a leak across applications
		// (and teams), and a disk that fills. In /tmp only what is written
		// during this check's own generations counts (earlier checks' are
		// theirs, and so are the canaries they planted); the container's own
		// file system has no times, so any change there counts.
		name := s.Plugin(RoleSubject).FullName()
		since := time.Now()
		for _, sm := range s.Certification().Samples {
			ginkgo.By("sample " + sm.Name)
			generate(ctx, s, sm, "plug-left")
		}
		left, err := s.Env.PluginLeftovers(ctx, name, since)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		// A canary another check planted was written by that check's
		// application, not by these generations: that check judges it.
		left, theirs := withoutPlanted(left)
		if len(theirs) > 0 {
			ginkgo.By(fmt.Sprintf("not counted: %s, planted by another check for its hostile values and written by a generation of its application that ran during this check", strings.Join(theirs, ", ")))
		}
		gomega.Expect(left).To(gomega.BeEmpty(), "plugin %s left files outside its working copies, where the next application's generation can read them", name)
	},
}

// AnnouncementProblems lists what makes announcements ill formed, by the
// parameterized-CMP proposal (docs/proposals/parameterized-config-management-plugins.md):
// every one named, once; collectionType string (or none), array or map, with
// a default of that kind only; itemType string, number or boolean, with a
// default of that type.
func AnnouncementProblems(anns []Announcement) []string {
	var out []string
	seen := map[string]bool{}
	for i, a := range anns {
		name := a.Name
		switch {
		case name == "":
			out = append(out, fmt.Sprintf("announcement %d has no name", i))
			name = fmt.Sprintf("#%d", i)
		case seen[name]:
			out = append(out, fmt.Sprintf("%s is announced twice", name))
		}
		seen[name] = true
		switch a.CollectionType {
		case "", "string":
			if len(a.Array) > 0 || len(a.Map) > 0 {
				out = append(out, fmt.Sprintf("%s: collectionType %q with an array or map default", name, a.CollectionType))
			}
		case "array":
			if a.String != "" || len(a.Map) > 0 {
				out = append(out, fmt.Sprintf("%s: collectionType array with a string or map default", name))
			}
		case "map":
			if a.String != "" || len(a.Array) > 0 {
				out = append(out, fmt.Sprintf("%s: collectionType map with a string or array default", name))
			}
		default:
			out = append(out, fmt.Sprintf("%s: collectionType %q is not string, array or map", name, a.CollectionType))
		}
		values := append([]string{a.String}, a.Array...)
		for _, v := range a.Map {
			values = append(values, v)
		}
		for _, v := range values {
			if v == "" {
				continue
			}
			switch a.ItemType {
			case "", "string":
			case "number":
				if _, err := strconv.ParseFloat(v, 64); err != nil {
					out = append(out, fmt.Sprintf("%s: itemType number with the default %q", name, v))
				}
			case "boolean":
				if v != "true" && v != "false" {
					out = append(out, fmt.Sprintf("%s: itemType boolean with the default %q", name, v))
				}
			default:
				out = append(out, fmt.Sprintf("%s: itemType %q is not string, number or boolean", name, a.ItemType))
			}
		}
	}
	return out
}
