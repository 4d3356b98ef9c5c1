package conformance

import (
	"context"
	"strings"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/onsi/ginkgo/v2"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/plugins/contract"
)

// The DISC family: how Argo CD picks a plugin for an application, as the
// config-management-plugins docs describe discover (fileName, find.glob,
// find.command, "only the first (in that order) is evaluated") and plugins
// without discover. Argo CD's own TestCMPDiscoverWith* are the floor.
// Markers are derived from the bound plugin's name (see the roles).

const discoverDocs = "argoproj/argo-cd#12073"

var discFileNameGlob = Check{
	ID: "DISC-001", Title: "discover.fileName is a glob pattern matched in the application folder",
	Area: Discover, Level: Core, Versions: ">=2.8.0", Requires: []Feature{Discovery}, Roles: []Role{RoleDiscoverFileName},
	Upstream: []string{"argoproj/argo-cd#13946"},
	Test: func(ctx context.Context, s *Suite) {
		// fileName "./<name>/s*.marker": only a glob matches "sample.marker".
		name := s.Plugin(RoleDiscoverFileName).Name
		renderedBy(s, s.Given(ctx).NamePrefix("disc-name").Path("contract-app").File(name+"/sample.marker", nil), RoleDiscoverFileName)
	},
}

var discFileNameFirst = Check{
	ID: "DISC-002", Title: "with discover.fileName set, find.glob is never evaluated",
	Area: Discover, Level: Core, Versions: ">=2.8.0", Requires: []Feature{Discovery}, Roles: []Role{RoleDiscoverFileName},
	Upstream: []string{discoverDocs},
	Test: func(ctx context.Context, s *Suite) {
		name := s.Plugin(RoleDiscoverFileName).Name
		notRendered(s, s.Given(ctx).NamePrefix("disc-name-glob").Path("contract-app").File("deep/"+name+"-glob.marker", nil))
	},
}

var discFindGlob = Check{
	ID: "DISC-003", Title: "discover.find.glob matches with ** in nested folders, before Argo CD's own Kustomize detection",
	Area: Discover, Level: Core, Versions: ">=2.8.0", Requires: []Feature{Discovery}, Roles: []Role{RoleDiscoverGlob},
	Upstream: []string{"argoproj/argo-cd#12073"},
	Test: func(ctx context.Context, s *Suite) {
		// A Kustomization file (no YAML extension, so the plugin does not
		// render it) would make Argo CD pick Kustomize if no plugin matched.
		name := s.Plugin(RoleDiscoverGlob).Name
		c := s.Given(ctx).NamePrefix("disc-glob").Path("contract-app").
			File("Kustomization", []byte("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [config.yaml]\n")).
			File("one/two/three/"+name+".marker", nil)
		renderedBy(s, c, RoleDiscoverGlob)
	},
}

var discGlobFirst = Check{
	ID: "DISC-004", Title: "with discover.find.glob set, find.command is never run",
	Area: Discover, Level: Core, Versions: ">=2.8.0", Requires: []Feature{Discovery}, Roles: []Role{RoleDiscoverGlob},
	Upstream: []string{discoverDocs},
	Test: func(ctx context.Context, s *Suite) {
		name := s.Plugin(RoleDiscoverGlob).Name
		notRendered(s, s.Given(ctx).NamePrefix("disc-glob-cmd").Path("contract-app").File(name+"-command.marker", nil))
	},
}

var discFindCommand = Check{
	ID: "DISC-005", Title: "discover.find.command matches only when it exits 0 and prints something",
	Area: Discover, Level: Core, Versions: ">=2.8.0", Requires: []Feature{Discovery}, Roles: []Role{RoleDiscoverCommand},
	Upstream: []string{discoverDocs},
	Test: func(ctx context.Context, s *Suite) {
		marker := s.Plugin(RoleDiscoverCommand).Name + ".marker"
		// Three applications at once: the command prints and exits 0, exits 0
		// printing nothing, prints and exits 1.
		match := s.Given(ctx).NamePrefix("disc-cmd").Path("contract-app").File(marker, []byte("match\n"))
		silent := s.Given(ctx).NamePrefix("disc-cmd-silent").Path("contract-app").File(marker, []byte("silent\n"))
		failing := s.Given(ctx).NamePrefix("disc-cmd-fail").Path("contract-app").File(marker, []byte("fail\n"))
		created := []*dsl.Actions{silent.When().CreateApp(), failing.When().CreateApp()}
		ginkgo.By("exit 0 with output: matched")
		renderedBy(s, match, RoleDiscoverCommand)
		for i, what := range []string{"exit 0 without output", "output with exit 1"} {
			ginkgo.By(what + ": not matched")
			created[i].Then().Expect(dsl.NoActionError()).
				ExpectWithin(s.Env.Timeouts.AppSynced, dsl.SourceTypeIs(v1alpha1.ApplicationSourceTypeDirectory))
		}
	},
}

var discFindCommandEnv = Check{
	ID: "DISC-006", Title: "discover.find.command sees the application's ARGOCD_ENV_* variables",
	Area: Discover, Level: Core, Versions: ">=2.11.0", Requires: []Feature{Discovery}, Roles: []Role{RoleDiscoverCommand},
	Upstream: []string{"argoproj/argo-cd#13950", "argoproj/argo-cd#13947"},
	Test: func(ctx context.Context, s *Suite) {
		marker := s.Plugin(RoleDiscoverCommand).Name + ".marker"
		c := s.Given(ctx).NamePrefix("disc-cmd-env").Path("contract-app").
			PluginEnv(map[string]string{strings.TrimPrefix(contract.FindEnv, "ARGOCD_ENV_"): marker})
		renderedBy(s, c, RoleDiscoverCommand)
	},
}

var discFindCommandRoot = Check{
	ID: "DISC-007", Title: "discover.find.command runs in the repository's root directory, as the docs say",
	Area: Discover, Level: Provisional, Versions: ">=2.8.0", Requires: []Feature{Discovery}, Roles: []Role{RoleDiscoverCommand},
	// The docs (config-management-plugins.md) say the repository root; since
	// #13946 (2.6.10, 2.7.5, 2.8) the command runs in the application folder.
	Upstream: []string{"argoproj/argo-cd#13940", "argoproj/argo-cd#13946"},
	Test: func(ctx context.Context, s *Suite) {
		marker := s.Plugin(RoleDiscoverCommand).Name + ".marker"
		c := s.Given(ctx).NamePrefix("disc-cmd-root").Path("contract-app").SourcePath("app").
			File("app/config.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: in-app-folder\n")).
			File(marker, []byte("match\n"))
		renderedBy(s, c, RoleDiscoverCommand)
	},
}

var discNamedOnly = Check{
	ID: "DISC-008", Title: "a plugin without discover is used only by name, as <name>-<version> when it has a version",
	Area: Discover, Level: Core, Versions: ">=2.6.0", Roles: []Role{RoleNamedOnly},
	Upstream: []string{"argoproj/argo-cd#12073", "argoproj/argo-cd#11341"},
	Test: func(ctx context.Context, s *Suite) {
		p := s.Plugin(RoleNamedOnly)
		// A probe file no other plugin looks for: only a plugin that
		// discovers anything (or by it) would take the unnamed application.
		// The named one has it too: a named plugin that has discovery must
		// also match (#18053), which is not what this check is about.
		probe := p.Name + ".probe"
		ginkgo.By("named " + p.FullName() + ": rendered by it")
		renderedBy(s, s.Given(ctx).NamePrefix("disc-named").Path("contract-app").File(probe, nil).Plugin(p.FullName()), RoleNamedOnly)
		ginkgo.By("not named: never discovered")
		notRendered(s, s.Given(ctx).NamePrefix("disc-unnamed").Path("contract-app").File(probe, nil))
	},
}
