package conformance

import (
	"context"
	"regexp"
	"strconv"
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
// The error must go away without a commit (a commit is a new cache key), so
// the plugin fails until a time its source names (contract.FailUntilFile):
// what it did is judged by behaviour, not by Argo CD's wording. While the
// window is open the check refreshes again and again; once it has closed, a
// normal refresh that still shows the error was served from the cache (the
// plugin would have succeeded), and a hard refresh must run the plugin and
// show its output.

// failWindow is how long the plugin fails: room for the repeated failures
// the cache needs, on a loaded machine (one refresh takes about a second).
const failWindow = 20 * time.Second

var errorCache = Check{
	ID:    "CACHE-001",
	Title: "a plugin error that repeats is served from the repo-server's cache on a normal refresh, and a hard refresh runs the plugin again and shows its new output",
	Area:  Faults, Level: Core, Versions: ">=2.4.0", Requires: []Feature{Discovery}, Roles: []Role{RoleFiles},
	Test: func(ctx context.Context, s *Suite) {
		until := time.Now().Add(failWindow).Truncate(time.Second)
		c := s.DiscoveredBy(s.Given(ctx).NamePrefix("error-cache").Path("contract-app").SourcePath("app").
			File("app/config.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache-config\n")).
			File("app/"+contract.FailUntilFile, []byte(strconv.FormatInt(until.Unix(), 10)+"\n")), RoleFiles)
		failing := regexp.MustCompile(regexp.QuoteMeta(contract.FailUntilFile))
		cons := c.When().CreateAppUnvalidated().Then().Expect(dsl.NoActionError()).
			ExpectWithin(s.Env.Timeouts.Refresh, dsl.ErrorSurfaces("ComparisonError", failing))

		// While the plugin fails: normal refreshes, each one a failure
		// (until the cache serves them), stopping short of the window's end
		// so that none runs the plugin after it; a second apart, since a
		// cached error answers in milliseconds.
		refreshes := 1
		pace := time.NewTicker(time.Second)
		defer pace.Stop()
		for ; time.Until(until) > 3*time.Second; refreshes++ {
			select {
			case <-pace.C:
			case <-ctx.Done():
				gomega.Expect(ctx.Err()).NotTo(gomega.HaveOccurred(), "stopped while refreshing the failing application")
			}
			cons = cons.When().Refresh(false).Then().Expect(dsl.NoActionError())
			msg := comparisonError(cons)
			gomega.Expect(msg).To(gomega.MatchRegexp(failing.String()), "while the plugin fails, refresh %d does not show its error", refreshes)
		}
		// The condition is the clock: the plugin fails until then.
		waitUntil(ctx, until)
		cons = cons.When().Refresh(false).Then().Expect(dsl.NoActionError())
		msg := comparisonError(cons)
		gomega.Expect(msg).To(gomega.MatchRegexp(failing.String()), "after %d refreshes of a failing plugin, and once its error had gone away, a normal refresh ran the plugin again: the error was not served from the repo-server's cache (%q)", refreshes, msg)
		observe("the error was served from the cache after %d refreshes during the %s the plugin failed: %s", refreshes, failWindow, shortened(msg))

		cons = cons.When().Refresh(true).Then().Expect(dsl.NoActionError())
		gomega.Eventually(func() string { return comparisonError(cons) }).WithContext(ctx).
			WithTimeout(s.Env.Timeouts.Refresh).WithPolling(s.Env.Timeouts.Poll).
			Should(gomega.BeEmpty(), "after a hard refresh, the application still shows the error: the plugin's new output was not used")
		rec := recordOf(cons)
		gomega.Expect(rec.Plugin).To(gomega.Equal(s.Plugin(RoleFiles).Name), "after the hard refresh, the application was rendered by %q", rec.Plugin)
	},
}

// comparisonError is the message of the application's ComparisonError
// condition ("" when it has none).
func comparisonError(cons *dsl.Consequences) string {
	ginkgo.GinkgoHelper()
	app, err := cons.App()
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "reading the application")
	return conditionMessage(app, v1alpha1.ApplicationConditionComparisonError)
}

// waitUntil blocks until the clock passes t, or ctx ends.
func waitUntil(ctx context.Context, t time.Time) {
	timer := time.NewTimer(time.Until(t) + 100*time.Millisecond)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
	}
}
