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
// checkout (util/app/path CheckOutOfBoundsSymlinks), which walks a link's
// target lexically. LINK-003's link goes through a symlinked parent:
// app/d/.../d/root points at the repository root, and leak.txt at
// root/../../.../<canary>, lexically inside the repository, where the kernel
// climbs from the real root of the checkout to /. The CVE fix meant to refuse
// any target that traverses outside (argo-cd#9843: "even if the final target
// is within it"); released versions let this one through, and the
// argocd-cmp-server rewrites it lexically, so the plugin gets a link to a
// path that does not exist rather than an error (argo-cd#24145).

var linksLeaving = Check{
	ID:    "LINK-002",
	Title: "a symlink whose target leaves the repository (absolute, or ../..) is refused with an error, and the plugin never reads what it points to (CVE-2022-24904)",
	Area:  Files, Level: Core, Versions: ">=2.4.0", Requires: []Feature{Discovery}, Roles: []Role{RoleFiles},
	Upstream: []string{"argoproj/argo-cd#24145"},
	Test: func(ctx context.Context, s *Suite) {
		secret, outside := outsideCanary()
		expectLinkRefused(ctx, s, "absolute", map[string]string{"app/absolute.txt": outside}, "app/absolute.txt", secret)
		expectLinkRefused(ctx, s, "relative", map[string]string{"app/up.txt": "../../../../../../../../../../etc/hostname"}, "app/up.txt", secret)
	},
}

// symlinkedParentDepth nests the link deeper than any checkout lies below
// /, so that climbing from the checkout's real root reaches /.
const symlinkedParentDepth = 40

var linksThroughParent = Check{
	ID:    "LINK-003",
	Title: "a symlink whose target leaves the repository through a symlinked parent (lexically inside, resolved outside) is refused with an error, and the plugin never reads what it points to",
	Area:  Files, Level: Provisional, Versions: ">=2.4.0", Requires: []Feature{Discovery}, Roles: []Role{RoleFiles},
	Upstream: []string{"argoproj/argo-cd#24145", "argoproj/argo-cd#9843"},
	Test: func(ctx context.Context, s *Suite) {
		secret, outside := outsideCanary()
		dir := "app" + strings.Repeat("/d", symlinkedParentDepth)
		up := strings.Repeat("../", symlinkedParentDepth+2)
		expectLinkRefused(ctx, s, "through a symlinked parent", map[string]string{
			dir + "/root":     strings.TrimSuffix(strings.Repeat("../", symlinkedParentDepth+1), "/"),
			dir + "/leak.txt": "root/" + up + strings.TrimPrefix(outside, "/"),
		}, dir+"/leak.txt", secret)
	},
}

// outsideCanary writes a file outside every repository, holding a secret
// the plugin must never read.
func outsideCanary() (secret, path string) {
	secret = dsl.UniqueName("cmpc-secret")
	path = filepath.Join(ginkgo.GinkgoT().TempDir(), "outside.txt")
	gomega.Expect(os.WriteFile(path, []byte(secret+"\n"), 0o644)).To(gomega.Succeed())
	return secret, path
}

// expectLinkRefused creates an application (folder app) holding links, and
// expects its generation to fail with a symlink error, the plugin never
// having read secret; probe is the link whose fate a failure describes.
func expectLinkRefused(ctx context.Context, s *Suite, name string, links map[string]string, probe, secret string) {
	ginkgo.GinkgoHelper()
	c := s.Given(ctx).NamePrefix("link-leaving").Path("contract-app").SourcePath("app").
		File("app/config.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: link-config\n"))
	for link, target := range links {
		c.Link(link, target)
	}
	c = s.DiscoveredBy(c, RoleFiles)
	target := links[probe]
	// Unvalidated: the API server would refuse to create it (its
	// validation generates manifests), and an application that already
	// exists, as after a bad commit, must show the error too.
	cons := c.When().CreateAppUnvalidated().Then().Expect(dsl.NoActionError())
	// Read what generation made first: a link let through shows there,
	// whatever the application's conditions say.
	if manifests, err := cons.Manifests(true); err == nil {
		for _, m := range manifests {
			gomega.Expect(m).NotTo(gomega.ContainSubstring(secret), "%s link %s -> %s: the plugin read the file it points to, outside the repository", name, probe, target)
		}
		// Failures go through Gomega: a witness's run intercepts them.
		reached := fmt.Sprintf("generation succeeded (%d manifests)", len(manifests))
		if rec, err := findRecord(manifests); err == nil {
			if e, ok := rec.Entry(strings.TrimPrefix(probe, "app/")); ok {
				reached = fmt.Sprintf("it reached the plugin as a %s to %q (resolves: %t)", e.Type, e.Target, e.Error == "")
			}
		}
		gomega.Expect(reached).To(gomega.BeEmpty(), "%s link %s -> %s was not refused", name, probe, target)
	}
	cons.ExpectWithin(s.Env.Timeouts.Refresh, dsl.ErrorSurfaces("ComparisonError", regexp.MustCompile(`(?i)symlink`)))
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
