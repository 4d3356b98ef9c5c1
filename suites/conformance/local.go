package conformance

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
)

// The LOCAL family: `argocd app diff/sync --local` with a sidecar plugin
// (argo-cd#8145), run by the argocd CLI of the version under test as a
// user's machine would: no plugin sockets in its environment.

const localChange = "changed in a local working copy"

// localSetup syncs an application that names the plain plugin, and returns a
// working copy of its source with one value changed. Naming the plugin rules
// out Argo CD's directory fallback; the whole folder is uploaded
// (--local-include '*') because the default include (*.yaml, *.yml, *.json)
// drops the plugin's marker file, which a named plugin with discovery must match.
func localSetup(ctx context.Context, s *Suite, prefix string) (*dsl.Context, string) {
	c := s.DiscoveredBy(s.Given(ctx).NamePrefix(prefix).Path("prune-app"), RolePlain).Plugin(s.Plugin(RolePlain).FullName())
	expectSyncedThroughPlugin(s, c)
	dir, err := c.Checkout(ctx)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(os.RemoveAll, dir)
	return c, dir
}

func changeLocally(dir string) {
	path := filepath.Join(dir, "keep.yaml")
	data, err := os.ReadFile(path)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	changed := strings.Replace(string(data), "stays in the source", localChange, 1)
	gomega.Expect(changed).NotTo(gomega.Equal(string(data)), "keep.yaml has no value to change")
	gomega.Expect(os.WriteFile(path, []byte(changed), 0o644)).To(gomega.Succeed())
}

func cli(ctx context.Context, s *Suite, args ...string) dsl.CLIResult {
	r, err := s.Env.CLI(ctx, args...)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "argocd %s", strings.Join(args, " "))
	return r
}

var localServerSideDiff = Check{
	ID: "LOCAL-001", Title: "app diff --local --server-side-generate works through a sidecar plugin and shows a real change",
	Area: Local, Level: Core, Versions: ">=2.5.0", Requires: []Feature{Discovery}, Roles: []Role{RolePlain},
	Upstream: []string{"argoproj/argo-cd#8145", "argoproj/argo-cd#10019"},
	Test: func(ctx context.Context, s *Suite) {
		c, dir := localSetup(ctx, s, "local-ssg")
		diff := []string{"app", "diff", c.Name(), "--local", dir, "--server-side-generate", "--local-include", "*"}
		// argocd app diff exits 0 for no difference, 1 for a difference.
		r := cli(ctx, s, diff...)
		gomega.Expect(r.ExitCode).To(gomega.Equal(0), "an unchanged working copy must show no difference:\n%s", r.Output)
		changeLocally(dir)
		r = cli(ctx, s, diff...)
		gomega.Expect(r.ExitCode).To(gomega.Equal(1), "a changed working copy must show a difference:\n%s", r.Output)
		gomega.Expect(r.Output).To(gomega.ContainSubstring(localChange))
	},
}

var localClientSideDiff = Check{
	ID: "LOCAL-002", Title: "app diff --local (client-side generation) works through a sidecar plugin",
	Area: Local, Level: Provisional, Versions: ">=2.5.0", Requires: []Feature{Discovery}, Roles: []Role{RolePlain},
	// Provisional: the CLI generates locally and needs the plugin's socket on
	// the user's machine; still open upstream (#8145).
	Upstream: []string{"argoproj/argo-cd#8145"},
	Test: func(ctx context.Context, s *Suite) {
		c, dir := localSetup(ctx, s, "local-csd")
		changeLocally(dir)
		r := cli(ctx, s, "app", "diff", c.Name(), "--local", dir, "--local-include", "*")
		gomega.Expect(r.ExitCode).To(gomega.Equal(1), "want a difference:\n%s", r.Output)
		gomega.Expect(r.Output).To(gomega.ContainSubstring(localChange))
	},
}

var localSync = Check{
	ID: "LOCAL-003", Title: "app sync --local applies a working copy through a sidecar plugin",
	Area: Local, Level: Provisional, Versions: ">=2.5.0", Requires: []Feature{Discovery}, Roles: []Role{RolePlain},
	// Provisional: sync --local has no plugin support (#10936; PR #28095 open).
	Upstream: []string{"argoproj/argo-cd#8145", "argoproj/argo-cd#10936"},
	Test: func(ctx context.Context, s *Suite) {
		c, dir := localSetup(ctx, s, "local-sync")
		changeLocally(dir)
		r := cli(ctx, s, "app", "sync", c.Name(), "--local", dir, "--local-repo-root", dir)
		gomega.Expect(r.ExitCode).To(gomega.Equal(0), "argocd app sync --local:\n%s", r.Output)
		cm, err := c.When().Then().Live("v1", "ConfigMap", "prune-keep")
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		got, _, _ := unstructured.NestedString(cm.Object, "data", "role")
		gomega.Expect(got).To(gomega.Equal(localChange), "the live ConfigMap after sync --local")
	},
}
