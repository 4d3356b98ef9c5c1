package conformance

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/fixtures/gitserver"
	"github.com/cmp-conformance/cmp-conformance/plugins/contract"
)

// The INIT, MODE and LINK families: what a plugin's working copy holds when
// its commands run, as the config-management-plugins docs describe init,
// preserveFileMode and the repository it receives. The contract plugins
// record their working copy; Argo CD's own TestPreserveFileModeForCMP and
// TestCMPWithSymlink* are the floor.

// initApp is an application in a folder of its own ("app"), so that "init
// runs in the application folder" is not the same as "at the root".
func initApp(ctx context.Context, s *Suite, prefix string) *dsl.Context {
	c := s.Given(ctx).NamePrefix(prefix).Path("contract-app").SourcePath("app").
		File("app/config.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: init-config\n"))
	return s.DiscoveredBy(c, RoleInit)
}

var initRunsFirst = Check{
	ID: "INIT-001", Title: "init runs before generate, in the application folder",
	Area: Initializing, Level: Core, Versions: ">=2.4.0", Requires: []Feature{Discovery, InitCommand}, Roles: []Role{RoleInit},
	Test: func(ctx context.Context, s *Suite) {
		_, rec := renderedBy(s, initApp(ctx, s, "init-first"), RoleInit)
		gomega.Expect(rec.SourcePath).To(gomega.Equal("app"), "generate ran for source path %q, want app", rec.SourcePath)
		gomega.Expect(rec.Init).NotTo(gomega.BeEmpty(), "init did not run before generate in the application folder: generate found no %s there", contract.InitFile)
	},
}

var initOutputIgnored = Check{
	ID: "INIT-002", Title: "what init prints is not manifests: only generate's output is",
	Area: Initializing, Level: Core, Versions: ">=2.4.0", Requires: []Feature{Discovery, InitCommand}, Roles: []Role{RoleInit},
	Test: func(ctx context.Context, s *Suite) {
		cons, _ := renderedBy(s, initApp(ctx, s, "init-output"), RoleInit)
		manifests, err := cons.Manifests(false)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(manifestNames(manifests)).NotTo(gomega.ContainElement("ConfigMap/"+contract.InitObject),
			"init's output became a manifest: ConfigMap %s, which init prints, is among the generated manifests", contract.InitObject)
	},
}

var initFailureSurfaces = Check{
	ID: "INIT-003", Title: "a failing init fails generation with its message and prunes nothing",
	Area: Initializing, Level: Core, Versions: ">=2.4.0", Requires: []Feature{Discovery, InitCommand}, Roles: []Role{RoleInit},
	Upstream: []string{"argoproj/argo-cd#15339"},
	Test: func(ctx context.Context, s *Suite) {
		msg := dsl.UniqueName("init refused")
		expectSyncedThroughPlugin(s, initApp(ctx, s, "init-fail")).
			ExpectWithin(s.Env.Timeouts.Settle, dsl.ResourceExists("v1", "ConfigMap", "init-config", nil)).
			When().Push(gitserver.Change{Message: "make init fail", Files: map[string][]byte{"app/" + contract.InitFailFile: []byte(msg + "\n")}}).Refresh(true).
			Then().Expect(dsl.NoActionError()).
			Expect(dsl.ErrorSurfaces("ComparisonError", regexp.MustCompile(regexp.QuoteMeta(msg)))).
			When().Sync(true).
			Then().ExpectWithin(s.Env.Timeouts.AppSynced, dsl.OperationFinished()).
			ExpectWithin(s.Env.Timeouts.Settle, dsl.ResourceExists("v1", "ConfigMap", "init-config", nil))
	},
}

// modesApp has an executable script (the git server commits *.sh with mode
// 100755) and a plain file.
func modesApp(ctx context.Context, s *Suite, prefix string, role Role) contract.Record {
	c := s.DiscoveredBy(s.Given(ctx).NamePrefix(prefix).Path("contract-app").
		File("run.sh", []byte("#!/bin/sh\necho hello\n")).File("data.txt", []byte("data\n")), role)
	_, rec := renderedBy(s, c, role)
	return rec
}

// entryMode returns the recorded permission bits of path.
func entryMode(rec contract.Record, path string) int64 {
	ginkgo.GinkgoHelper()
	e, ok := rec.Entry(path)
	gomega.Expect(ok).To(gomega.BeTrue(), "%s did not reach the plugin", path)
	mode, err := strconv.ParseInt(e.Mode, 8, 32)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "recorded mode of %s", path)
	return mode
}

var modeDefault = Check{
	ID: "MODE-001", Title: "without preserveFileMode, an executable file reaches the plugin without execute bits",
	Area: Files, Level: Core, Versions: ">=2.8.0", Requires: []Feature{Discovery}, Roles: []Role{RoleFiles},
	Upstream: []string{"argoproj/argo-cd#12940"},
	Test: func(ctx context.Context, s *Suite) {
		rec := modesApp(ctx, s, "mode-default", RoleFiles)
		mode := entryMode(rec, "run.sh")
		gomega.Expect(mode&0o111).To(gomega.BeZero(), "run.sh (100755 in git) reached the plugin with mode %04o: without preserveFileMode it must have no execute bits", mode)
	},
}

var modePreserved = Check{
	ID: "MODE-002", Title: "with preserveFileMode, files reach the plugin with their modes from git",
	Area: Files, Level: Core, Versions: ">=2.7.0", Requires: []Feature{Discovery, PreserveFileMode}, Roles: []Role{RolePreserveFileMode},
	Upstream: []string{"argoproj/argo-cd#12940"},
	Test: func(ctx context.Context, s *Suite) {
		rec := modesApp(ctx, s, "mode-preserve", RolePreserveFileMode)
		for path, want := range map[string]int64{"run.sh": 0o755, "data.txt": 0o644} {
			got := entryMode(rec, path)
			gomega.Expect(fmt.Sprintf("%04o", got)).To(gomega.Equal(fmt.Sprintf("%04o", want)), "%s reached the plugin with mode %04o, want %04o as in git (preserveFileMode: true)", path, got, want)
		}
	},
}

var linksInside = Check{
	ID: "LINK-001", Title: "symlinks inside the repository reach the plugin and resolve: to a file, to a folder, out of the application folder",
	Area: Files, Level: Core, Versions: ">=2.8.0", Requires: []Feature{Discovery}, Roles: []Role{RoleFiles},
	Upstream: []string{"argoproj/argo-cd#13342", "argoproj/argo-cd#11444", "argoproj/argo-cd#13360"},
	Test: func(ctx context.Context, s *Suite) {
		c := s.Given(ctx).NamePrefix("link-inside").Path("contract-app").SourcePath("app").
			File("app/config.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: link-config\n")).
			File("app/data.txt", []byte("same folder\n")).
			File("app/folder/inside.txt", []byte("in a folder\n")).
			File("shared/outside.txt", []byte("outside the application folder\n")).
			Link("app/to-file.txt", "data.txt").
			Link("app/to-folder", "folder").
			Link("app/partial.txt", "../shared/outside.txt")
		_, rec := renderedBy(s, s.DiscoveredBy(c, RoleFiles), RoleFiles)
		var problems []string
		for link, want := range map[string]string{"to-file.txt": "same folder\n", "partial.txt": "outside the application folder\n", "to-folder": "inside.txt"} {
			e, ok := rec.Entry(link)
			switch {
			case !ok:
				problems = append(problems, link+" did not reach the plugin")
			case e.Type != "symlink":
				problems = append(problems, fmt.Sprintf("%s reached the plugin as a %s, not a symlink", link, e.Type))
			case e.Error != "":
				problems = append(problems, fmt.Sprintf("%s -> %s does not resolve: %s", link, e.Target, e.Error))
			case e.TargetType == "dir" && !slices.Contains(e.Children, want):
				problems = append(problems, fmt.Sprintf("%s -> %s lists %v, want %s", link, e.Target, e.Children, want))
			case e.TargetType == "file" && e.Content != want:
				problems = append(problems, fmt.Sprintf("%s -> %s reads %q, want %q", link, e.Target, e.Content, want))
			}
		}
		gomega.Expect(problems).To(gomega.BeEmpty(), "symlinks as the plugin found them")
	},
}

var linksLooping = Check{
	ID: "LINK-004", Title: "symlink loops inside the repository (a link to its own folder, one through its parent, two links to each other) reach the plugin as links that loop as in git, and the application renders",
	Area: Files, Level: Core, Versions: ">=2.8.0", Requires: []Feature{Discovery}, Roles: []Role{RoleFiles},
	// Issue 17's "a repository with a symlink loop": every link stays inside
	// the repository, so none is refused; an Argo CD that followed links
	// (to check them, or to archive them) would never finish, or fail.
	// Targets are judged by what they resolve to, not by their text:
	// argocd-cmp-server may rewrite them (v2.14 makes them absolute).
	Upstream: []string{"argoproj/argo-cd#13342", "argoproj/argo-cd#11444"},
	Test: func(ctx context.Context, s *Suite) {
		// up goes through the parent and back (a link to the repository root
		// itself is another matter: docs/decisions.md).
		toFolder := map[string]string{"self": ".", "up": "../app"}
		loop := map[string]string{"ping": "pong", "pong": "ping"}
		c := s.Given(ctx).NamePrefix("link-loop").Path("contract-app").SourcePath("app").
			File("app/config.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: link-loop-config\n"))
		for link, target := range toFolder {
			c = c.Link("app/"+link, target)
		}
		for link, target := range loop {
			c = c.Link("app/"+link, target)
		}
		_, rec := renderedBy(s, s.DiscoveredBy(c, RoleFiles), RoleFiles)
		var problems []string
		for _, link := range slices.Sorted(maps.Keys(toFolder)) {
			e, ok := rec.Entry(link)
			switch {
			case !ok:
				problems = append(problems, link+" did not reach the plugin")
			case e.Type != "symlink":
				problems = append(problems, fmt.Sprintf("%s reached the plugin as a %s, not a symlink", link, e.Type))
			case e.TargetType != "dir" || !slices.Contains(e.Children, "config.yaml"):
				problems = append(problems, fmt.Sprintf("%s -> %s does not lead back to the application folder (%s, lists %v; %s)", link, e.Target, e.TargetType, e.Children, e.Error))
			}
		}
		for _, link := range slices.Sorted(maps.Keys(loop)) {
			e, ok := rec.Entry(link)
			switch {
			case !ok:
				problems = append(problems, link+" did not reach the plugin")
			case e.Type != "symlink":
				problems = append(problems, fmt.Sprintf("%s reached the plugin as a %s, not a symlink", link, e.Type))
			case e.TargetType != "":
				problems = append(problems, fmt.Sprintf("%s -> %s resolves to a %s: the loop with %s was not delivered as one", link, e.Target, e.TargetType, loop[link]))
			}
		}
		gomega.Expect(problems).To(gomega.BeEmpty(), "the looping symlinks as the plugin found them")
	},
}
