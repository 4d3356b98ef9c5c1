package conformance

import (
	"context"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/plugins/contract"
)

// CACHE-001: "CMP errors are cached by the repo-server in Redis. [...]
// Always do a 'Hard Refresh' when actively developing a CMP so you have the
// latest output" (config-management-plugins docs, debugging). The
// repo-server serves a generation error from its cache once it has
// repeated ARGOCD_PAUSE_GEN_AFTER_FAILED_ATTEMPTS times (3 by default), for
// ARGOCD_PAUSE_GEN_MINUTES (60); a hard refresh bypasses the cache.
//
// The error must go away without a commit (a commit is a new cache key),
// so the plugin fails while a flag in its scratch folder exists
// (contract.FailWhileFile): it makes the flag on its first run and records
// every run beside it, and the check removes the flag once it has seen the
// repo-server stop running the plugin. What it did is judged by behaviour,
// not by Argo CD's wording: after the flag is gone, a normal refresh that
// still shows the error was served from the cache (the plugin would have
// succeeded), and a hard refresh must run the plugin and show its output.
// The check, not a clock, ends the failure, so no refresh can be answered
// on the wrong side of it, however slow the machine.
const (
	// pauseAfter is ARGOCD_PAUSE_GEN_AFTER_FAILED_ATTEMPTS's default: the
	// repo-server serves an error from its cache once the plugin has failed
	// that many times in a row.
	pauseAfter = 3
	// maxFailingRefreshes bounds the normal refreshes made while the plugin
	// fails: a repo-server that never stops running the plugin has shown it
	// long before.
	maxFailingRefreshes = 12
)

var errorCache = Check{
	ID:    "CACHE-001",
	Title: "a plugin error that repeats is served from the repo-server's cache on a normal refresh, and a hard refresh runs the plugin again and shows its new output",
	Area:  Faults, Level: Core, Versions: ">=2.4.0", Requires: []Feature{Discovery}, Roles: []Role{RoleFiles},
	Needs: []dsl.Ability{dsl.AbilityPluginScratch},
	Test: func(ctx context.Context, s *Suite) {
		failing := regexp.MustCompile(regexp.QuoteMeta(contract.FailWhileFile))
		sc := s.Env.PluginScratch(s.Plugin(RoleFiles).FullName())
		flag := dsl.UniqueName("error-cache")
		c := s.DiscoveredBy(s.Given(ctx).NamePrefix("error-cache").Path("contract-app").SourcePath("app").
			File("app/config.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache-config\n")).
			File("app/"+contract.FailWhileFile, []byte(path.Join(sc.Dir(), flag)+"\n")), RoleFiles)
		cons := c.When().CreateAppUnvalidated().Then().Expect(dsl.NoActionError()).
			ExpectWithin(s.Env.Timeouts.Refresh, dsl.ErrorSurfaces("ComparisonError", failing))
		ginkgo.DeferCleanup(func(ctx context.Context) {
			for _, name := range []string{flag, flag + ".runs"} {
				_ = sc.Remove(ctx, name)
			}
		})

		cons, runs, refreshes := refreshWhileFailing(ctx, cons, sc, flag, failing)
		gomega.Expect(sc.Remove(ctx, flag)).To(gomega.Succeed(), "removing the flag that makes the plugin fail")

		cons = cons.When().Refresh(false).Then().Expect(dsl.NoActionError())
		msg := comparisonError(cons)
		gomega.Expect(msg).To(gomega.MatchRegexp(failing.String()), "after the plugin had failed %d times in %d refreshes, and once its error had gone away, a normal refresh ran the plugin again: the error was not served from the repo-server's cache (%q)", runs, refreshes, msg)
		observe("the error was served from the cache after the plugin had failed %d times in %d refreshes: %s", runs, refreshes, shortened(msg))

		cons = cons.When().Refresh(true).Then().Expect(dsl.NoActionError()).
			ExpectAnswered(s.Env.Timeouts.Refresh, errorGoneAfterHardRefresh())
		rec := recordOf(cons)
		gomega.Expect(rec.Plugin).To(gomega.Equal(s.Plugin(RoleFiles).Name), "after the hard refresh, the application was rendered by %q", rec.Plugin)
	},
}

// refreshWhileFailing refreshes the application normally, a second apart
// (a cached error answers in milliseconds, and a refresh asked at once
// after the last one's answer can be lost: lostRefresh in fixtures/dsl),
// each refresh showing the plugin's error, until the repo-server has
// served one without running the plugin after pauseAfter failures, or
// has run it twice that often (it does not cache), or
// maxFailingRefreshes. It returns the plugin's runs and the refreshes
// made, the creation's included.
func refreshWhileFailing(ctx context.Context, cons *dsl.Consequences, sc dsl.Scratch, flag string, failing *regexp.Regexp) (*dsl.Consequences, int, int) {
	ginkgo.GinkgoHelper()
	runs := pluginRuns(ctx, sc, flag)
	pace := time.NewTicker(time.Second)
	defer pace.Stop()
	refreshes := 1
	for ran := true; refreshes < maxFailingRefreshes && runs < 2*pauseAfter && (ran || runs < pauseAfter); refreshes++ {
		select {
		case <-pace.C:
		case <-ctx.Done():
			gomega.Expect(ctx.Err()).NotTo(gomega.HaveOccurred(), "stopped while refreshing the failing application")
		}
		cons = cons.When().Refresh(false).Then().Expect(dsl.NoActionError())
		msg := comparisonError(cons)
		gomega.Expect(msg).To(gomega.MatchRegexp(failing.String()), "while the plugin fails, refresh %d does not show its error", refreshes+1)
		now := pluginRuns(ctx, sc, flag)
		ran, runs = now > runs, now
	}
	return cons, runs, refreshes
}

// pluginRuns is how many times the plugin has run the application, as it
// records them beside its flag (one line a run).
func pluginRuns(ctx context.Context, sc dsl.Scratch, flag string) int {
	ginkgo.GinkgoHelper()
	data, _, err := sc.Read(ctx, flag+".runs")
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the plugin keeps no record of its runs beside its flag (%s, as %s asks)", flag+".runs", contract.FailWhileFile)
	return strings.Count(string(data), "\n")
}

// errorGoneAfterHardRefresh is met when the application shows no
// ComparisonError any more.
func errorGoneAfterHardRefresh() dsl.Expectation {
	return func(c *dsl.Consequences) (dsl.State, string) {
		if msg := comparisonError(c); msg != "" {
			return dsl.Pending, "after a hard refresh, the application still shows the error: the plugin's new output was not used (" + shortened(msg) + ")"
		}
		return dsl.Succeeded, ""
	}
}

// comparisonError is the message of the application's ComparisonError
// condition ("" when it has none).
func comparisonError(cons *dsl.Consequences) string {
	ginkgo.GinkgoHelper()
	app, err := cons.App()
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "reading the application")
	return dsl.ConditionMessage(app, v1alpha1.ApplicationConditionComparisonError)
}
