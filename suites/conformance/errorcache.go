package conformance

import (
	"context"
	"fmt"
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

// The plugin fails for a window, the first one short: room for
// minRefreshes refreshes on an idle machine (one takes about a second). A
// window that closed before that many refreshes ran is too short to judge
// the cache by (the repo-server may not have seen the failures it needs, and
// the plugin would then be run again for a reason of this machine's pace,
// not of Argo CD's): the check starts over with a new application and twice
// the window, up to maxFailWindow, and judges whatever that last one shows.
const (
	failWindow    = 12 * time.Second
	maxFailWindow = 48 * time.Second
	// minRefreshes, the creation's included: twice the failures
	// (ARGOCD_PAUSE_GEN_AFTER_FAILED_ATTEMPTS, 3 by default) after which the
	// repo-server serves an error from its cache.
	minRefreshes = 6
)

var errorCache = Check{
	ID:    "CACHE-001",
	Title: "a plugin error that repeats is served from the repo-server's cache on a normal refresh, and a hard refresh runs the plugin again and shows its new output",
	Area:  Faults, Level: Core, Versions: ">=2.4.0", Requires: []Feature{Discovery}, Roles: []Role{RoleFiles},
	Test: func(ctx context.Context, s *Suite) {
		failing := regexp.MustCompile(regexp.QuoteMeta(contract.FailUntilFile))
		window := failWindow
		cons, refreshes, late := failingFor(ctx, s, window, failing)
		for (refreshes < minRefreshes || late) && window < maxFailWindow {
			observe("%d refreshes ran in the %s the plugin failed (one answered after it closed: %v), too few to judge the cache by: again with a new application and %s", refreshes, window, late, 2*window)
			window *= 2
			cons, refreshes, late = failingFor(ctx, s, window, failing)
		}
		if late {
			ginkgo.Skip(fmt.Sprintf("cannot judge: even in a window of %s, a refresh was answered only after the plugin had stopped failing, so the repo-server may hold its success, not its error (this machine answers refreshes too slowly)", window))
		}
		cons = cons.When().Refresh(false).Then().Expect(dsl.NoActionError())
		msg := comparisonError(cons)
		gomega.Expect(msg).To(gomega.MatchRegexp(failing.String()), "after %d refreshes of a failing plugin, and once its error had gone away, a normal refresh ran the plugin again: the error was not served from the repo-server's cache (%q)", refreshes, msg)
		observe("the error was served from the cache after %d refreshes during the %s the plugin failed: %s", refreshes, window, shortened(msg))

		cons = cons.When().Refresh(true).Then().Expect(dsl.NoActionError()).
			ExpectAnswered(s.Env.Timeouts.Refresh, errorGoneAfterHardRefresh())
		rec := recordOf(cons)
		gomega.Expect(rec.Plugin).To(gomega.Equal(s.Plugin(RoleFiles).Name), "after the hard refresh, the application was rendered by %q", rec.Plugin)
	},
}

// failingFor creates an application whose plugin fails for window, refreshes
// it normally while it fails, and returns once the window has closed, with
// the number of refreshes that showed the error (the creation's included),
// and whether a refresh was answered only after the window closed.
func failingFor(ctx context.Context, s *Suite, window time.Duration, failing *regexp.Regexp) (*dsl.Consequences, int, bool) {
	ginkgo.GinkgoHelper()
	until := time.Now().Add(window).Truncate(time.Second)
	c := s.DiscoveredBy(s.Given(ctx).NamePrefix("error-cache").Path("contract-app").SourcePath("app").
		File("app/config.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache-config\n")).
		File("app/"+contract.FailUntilFile, []byte(strconv.FormatInt(until.Unix(), 10)+"\n")), RoleFiles)
	cons := c.When().CreateAppUnvalidated().Then().Expect(dsl.NoActionError()).
		ExpectWithin(s.Env.Timeouts.Refresh, dsl.ErrorSurfaces("ComparisonError", failing))

	// Normal refreshes, each one a failure (until the cache serves them),
	// stopping short of the window's end so that none runs the plugin after
	// it; a second apart, since a cached error answers in milliseconds.
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
		if !time.Now().Before(until) {
			// Answered after the window closed: its generation may have
			// run after it, when the plugin rightly succeeds (a slow
			// machine's refresh took 5 s), and the repo-server may now hold
			// that success. Not judged; the window is spoiled.
			waitUntil(ctx, until)
			return cons, refreshes, true
		}
		msg := comparisonError(cons)
		gomega.Expect(msg).To(gomega.MatchRegexp(failing.String()), "while the plugin fails, refresh %d does not show its error", refreshes)
	}
	// The condition is the clock: the plugin fails until then.
	waitUntil(ctx, until)
	return cons, refreshes, false
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

// waitUntil blocks until the clock passes t, or ctx ends.
func waitUntil(ctx context.Context, t time.Time) {
	timer := time.NewTimer(time.Until(t) + 100*time.Millisecond)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
	}
}
