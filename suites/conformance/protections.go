package conformance

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/plugins/contract"
)

// Protections of Argo CD around what reaches a plugin: out-of-bounds
// symlinks are refused (CVE-2022-24904) and tar exclusions hold back files.
// The plugin cannot break these; an Argo CD with the protection turned off
// can, so their witnesses change the repo-server's settings
// (witness.yaml repoServer).

// The links LINK-002 tries are refused by the repo-server's check of the
// checkout (util/app/path CheckOutOfBoundsSymlinks). A target through a
// symlinked parent (app/root -> .., then root/../../x, lexically in bounds)
// is not among them: the repo-server lets it through and argocd-cmp-server
// rewrites it in bounds (argo-cd#24145); judging that needs a canary where
// the kernel would resolve it, outside the repo-server's checkout.

var linksLeaving = Check{
	ID:    "LINK-002",
	Title: "a symlink whose target leaves the repository (absolute, or ../..) is refused with an error, and the plugin never reads what it points to (CVE-2022-24904)",
	Area:  Security, Level: Core, Versions: ">=2.4.0", Requires: []Feature{Discovery}, Roles: []Role{RoleFiles},
	Upstream: []string{"argoproj/argo-cd#24145"},
	Test: func(ctx context.Context, s *Suite) {
		secret := dsl.UniqueName("cmpc-secret")
		outside := filepath.Join(ginkgo.GinkgoT().TempDir(), "outside.txt")
		gomega.Expect(os.WriteFile(outside, []byte(secret+"\n"), 0o644)).To(gomega.Succeed())
		links := []struct{ name, link, target string }{
			{name: "absolute", link: "app/absolute.txt", target: outside},
			{name: "relative", link: "app/up.txt", target: "../../../../../../../../../../etc/hostname"},
		}
		for _, l := range links {
			target := l.target
			c := s.DiscoveredBy(s.Given(ctx).NamePrefix("link-leaving").Path("contract-app").SourcePath("app").
				File("app/config.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: link-config\n")).
				Link(l.link, target), RoleFiles)
			refused := regexp.MustCompile(`(?i)symlink`)
			// Unvalidated: the API server would refuse to create it (its
			// validation generates manifests), and an application that
			// already exists, as after a bad commit, must show the error too.
			cons := c.When().CreateAppUnvalidated().Then().Expect(dsl.NoActionError())
			// Read what generation made first: a link let through shows
			// there, whatever the application's conditions say.
			if manifests, err := cons.Manifests(true); err == nil {
				for _, m := range manifests {
					gomega.Expect(m).NotTo(gomega.ContainSubstring(secret), "%s link %s -> %s: the plugin read the file it points to, outside the repository", l.name, l.link, target)
				}
				// Failures go through Gomega: a witness's run intercepts them.
				reached := fmt.Sprintf("generation succeeded (%d manifests)", len(manifests))
				if rec, err := findRecord(manifests); err == nil {
					if e, ok := rec.Entry(strings.TrimPrefix(l.link, "app/")); ok {
						reached = fmt.Sprintf("it reached the plugin as a %s (resolves: %t)", e.Type, e.Error == "")
					}
				}
				gomega.Expect(reached).To(gomega.BeEmpty(), "%s link %s -> %s was not refused", l.name, l.link, target)
			}
			cons.ExpectWithin(s.Env.Timeouts.Refresh, dsl.ErrorSurfaces("ComparisonError", refused))
		}
	},
}

var tarExclusions = Check{
	ID:    "TAR-001",
	Title: "files matching the repo-server's plugin tar exclusions never reach the plugin; the rest of the folder does",
	Area:  Security, Level: Core, Versions: ">=2.5.0", Requires: []Feature{Discovery}, Roles: []Role{RoleFiles},
	Upstream: []string{"argoproj/argo-cd#9789"},
	Test: func(ctx context.Context, s *Suite) {
		c := s.DiscoveredBy(s.Given(ctx).NamePrefix("tar-exclude").Path("contract-app").SourcePath("app").
			File("app/config.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: tar-config\n")).
			File("app/kept.txt", []byte("kept\n")).
			File("app/"+contract.ExcludedFile, []byte("must not reach the plugin\n")), RoleFiles)
		_, rec := renderedBy(s, c, RoleFiles)
		_, kept := rec.Entry("kept.txt")
		gomega.Expect(kept).To(gomega.BeTrue(), "kept.txt, which no exclusion matches, did not reach the plugin")
		_, excluded := rec.Entry(contract.ExcludedFile)
		gomega.Expect(excluded).To(gomega.BeFalse(), "app/%s reached the plugin although the repo-server excludes it (--plugin-tar-exclude %s)", contract.ExcludedFile, argocd.PluginTarExclusions)
	},
}
