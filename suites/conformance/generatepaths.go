package conformance

import (
	"context"
	"path"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/plugins/contract"
)

// The MGP family: with the repo-server's --plugin-use-manifest-generate-paths
// (2.14, argo-cd#19209), "the resources specified by [the
// argocd.argoproj.io/manifest-generate-paths] annotation will be passed to
// the CMP server for generating application manifests, rather than sending
// the entire repository" (config-management-plugins docs). The contract
// plugin records everything it was sent (contract.Received), so what
// reached it is read, not inferred.

// generatePathsSetting turns the option on for the check.
const generatePathsSetting = "ARGOCD_REPO_SERVER_PLUGIN_USE_MANIFEST_GENERATE_PATHS=true"

const generatePathsAnnotation = "argocd.argoproj.io/manifest-generate-paths"

// monorepoApp is an application folder apps/app among others: a shared
// folder beside it, an unrelated one, and the fixture's files at the root.
func monorepoApp(ctx context.Context, s *Suite, prefix, paths string) *dsl.Context {
	c := s.Given(ctx).NamePrefix(prefix).Path("contract-app").SourcePath("apps/app").
		Annotate(generatePathsAnnotation, paths).
		File("apps/app/config.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mgp-config\n")).
		File("apps/app/kept.txt", []byte("kept\n")).
		File("apps/shared/values.txt", []byte("shared\n")).
		File("apps/other/other.txt", []byte("not named\n"))
	return s.DiscoveredBy(c, RoleFiles)
}

// receivedInRepo places what the plugin received in the repository: the
// archive's root is the working directory (the application folder) less
// the record's AppRelPath.
func receivedInRepo(rec contract.Record) []string {
	ginkgo.GinkgoHelper()
	r := rec.Received
	gomega.Expect(r.Error).To(gomega.BeEmpty(), "the plugin could not list what it was sent")
	root, ok := strings.CutSuffix(rec.SourcePath, r.AppRelPath)
	if r.AppRelPath == "." {
		root, ok = rec.SourcePath, true
	}
	gomega.Expect(ok).To(gomega.BeTrue(), "the plugin ran in %q of what it was sent, which is not the end of its source path %q", r.AppRelPath, rec.SourcePath)
	out := make([]string, 0, len(r.Paths))
	for _, p := range r.Paths {
		out = append(out, path.Join(root, p))
	}
	return out
}

// outside lists the paths under none of the folders.
func outside(paths []string, folders ...string) []string {
	var out []string
	for _, p := range paths {
		in := false
		for _, f := range folders {
			in = in || strings.HasPrefix(p, f+"/")
		}
		if !in {
			out = append(out, p)
		}
	}
	return out
}

var generatePathsOnly = Check{
	ID:    "MGP-001",
	Title: "with the repo-server's plugin option on, only the application folder its manifest-generate-paths names reaches the plugin, not the rest of the repository",
	Area:  Files, Level: Core, Versions: ">=2.14.0", Requires: []Feature{Discovery}, Roles: []Role{RoleFiles},
	Upstream:   []string{"argoproj/argo-cd#19209"},
	RepoServer: []string{generatePathsSetting},
	Test: func(ctx context.Context, s *Suite) {
		_, rec := renderedBy(s, monorepoApp(ctx, s, "mgp-only", "."), RoleFiles)
		got := receivedInRepo(rec)
		gomega.Expect(got).To(gomega.ContainElement("apps/app/kept.txt"), "apps/app/kept.txt, in the folder the annotation names, did not reach the plugin")
		gomega.Expect(outside(got, "apps/app")).To(gomega.BeEmpty(), "with manifest-generate-paths %q on apps/app, files elsewhere in the repository reached the plugin", ".")
	},
}

var generatePathsListed = Check{
	ID:    "MGP-002",
	Title: "with the repo-server's plugin option on, a folder manifest-generate-paths names beside the application's reaches the plugin, and folders it does not name do not",
	Area:  Files, Level: Provisional, Versions: ">=2.14.0", Requires: []Feature{Discovery}, Roles: []Role{RoleFiles},
	Upstream:   []string{"argoproj/argo-cd#29309", "argoproj/argo-cd#29362"},
	RepoServer: []string{generatePathsSetting},
	Test: func(ctx context.Context, s *Suite) {
		_, rec := renderedBy(s, monorepoApp(ctx, s, "mgp-listed", ".;../shared"), RoleFiles)
		got := receivedInRepo(rec)
		gomega.Expect(got).To(gomega.ContainElement("apps/shared/values.txt"), "apps/shared/values.txt, which the annotation names (../shared), did not reach the plugin")
		gomega.Expect(outside(got, "apps/app", "apps/shared")).To(gomega.BeEmpty(), "with manifest-generate-paths %q on apps/app, files it does not name reached the plugin", ".;../shared")
	},
}
