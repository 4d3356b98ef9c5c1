package conformance

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/cmp-conformance/cmp-conformance/fixtures/argocd"
	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/fixtures/gitserver"
	"github.com/cmp-conformance/cmp-conformance/plugins/faulty"
)

// execSlack is what FAULT-005 allows past ARGOCD_EXEC_TIMEOUT: the time for
// the signal to reach the plugin on a loaded machine. The repo-server's
// deadline, the other bound, is several seconds further.
const execSlack = 3 * time.Second

// execDeadline is FAULT-005's repo-server deadline (Check.Deadline): 4 s
// past argocd.PluginExecTimeout (8 s) and execSlack, so that a command the
// exec timeout stops and one only the deadline stops are told apart.
const execDeadline = 15 * time.Second

var faultExecTimeout = Check{
	ID: "FAULT-005", Title: "a plugin command that runs past the sidecar's ARGOCD_EXEC_TIMEOUT is stopped at that timeout, not only at the repo-server's deadline",
	Needs: []dsl.Ability{dsl.AbilityPluginScratch},
	Area:  Faults, Level: Provisional, Versions: ">=2.4.0", Requires: []Feature{Discovery}, Roles: []Role{RoleFaultyGenerate},
	// Provisional: the docs say "Each CMP command will also independently
	// timeout on the ARGOCD_EXEC_TIMEOUT set for the CMP sidecar";
	// argocd-cmp-server runs commands under the request's deadline only
	// (#20577, #29166 open; PR #25023 open).
	Upstream: []string{"argoproj/argo-cd#20577", "argoproj/argo-cd#29166", "argoproj/argo-cd#25023"},
	// Where ARGOCD_EXEC_TIMEOUT is not honoured the hang runs to the
	// repo-server's deadline: a short one of its own, still past the exec
	// timeout and its slack (the check asserts so), not the environment's
	// 25 s.
	Deadline: execDeadline, DeadlineAfterSetUp: true,
	Test: func(ctx context.Context, s *Suite) {
		execTimeout := pluginExecTimeout(s.Plugin(RoleFaultyGenerate))
		// The plugin writes its record in a folder of the run, which goes
		// with it: a hang the last refresh began may write after the check.
		sc := s.Env.PluginScratch(s.Plugin(RoleFaultyGenerate).FullName())
		name := dsl.UniqueName("cmpc-stop")
		ginkgo.DeferCleanup(func(ctx context.Context) { _ = sc.Remove(ctx, name) })
		c := s.DiscoveredBy(s.Given(ctx).NamePrefix("fault-exec").Path("prune-app"), RoleFaultyGenerate).
			PluginEnv(map[string]string{strings.TrimPrefix(faulty.StopRecordEnv, "ARGOCD_ENV_"): path.Join(sc.Dir(), name)})
		synced := expectSyncedThroughPlugin(s, c)
		s.StartDeadline(ctx)
		// The deadline in force from here on (the environment's before).
		repoTimeout := s.RepoServerTimeout()
		gomega.Expect(execTimeout+execSlack).To(gomega.BeNumerically("<", repoTimeout),
			"the environment cannot tell the two bounds apart: ARGOCD_EXEC_TIMEOUT %s, repo-server timeout %s", execTimeout, repoTimeout)
		synced.When().Push(gitserver.Change{Message: "fault: hang", Files: map[string][]byte{faulty.FaultFile: []byte(faulty.FaultHang + "\n")}}).
			Refresh(true).
			Then().Expect(dsl.NoActionError()).
			ExpectWithin(s.Env.Timeouts.Fault, dsl.ErrorSurfaces("ComparisonError", anyMessage))
		var ran time.Duration
		gomega.Eventually(ctx, func() error {
			var err error
			started, last, err := spanOf(ctx, sc, name)
			ran = last.Sub(started)
			return err
		}).WithTimeout(repoTimeout+10*time.Second).WithPolling(s.Env.Timeouts.Poll).Should(gomega.Succeed(), "the hanging command's record")
		observe("the hanging command was stopped %.1fs after it began (ARGOCD_EXEC_TIMEOUT %s, repo-server timeout %s)", ran.Seconds(), execTimeout, repoTimeout)
		gomega.Expect(ran).To(gomega.BeNumerically("<=", execTimeout+execSlack),
			"the command ran %.1fs, past ARGOCD_EXEC_TIMEOUT=%s: only the repo-server's deadline (%s) stopped it", ran.Seconds(), execTimeout, repoTimeout)
	},
}

// spanOf reads a record of the scratch folder and judges it (hangSpan) on
// the clock of the machine the plugin runs on, at the moment it was read.
func spanOf(ctx context.Context, sc dsl.Scratch, name string) (started, last time.Time, err error) {
	data, now, err := sc.Read(ctx, name)
	if err != nil {
		return started, last, fmt.Errorf("the plugin wrote no record yet: %w", err)
	}
	return hangSpan(data, now)
}

// hangSpan is when a record's first hang began and when it was last seen
// alive, once that hang is over: no line for a second before now (the
// moment the record was read), or a later hang begun.
func hangSpan(data []byte, now time.Time) (started, last time.Time, err error) {
	var first, end int64
	over := false
	for _, line := range strings.Split(string(data), "\n") {
		what, at, ok := strings.Cut(line, " ")
		n, err := strconv.ParseInt(at, 10, 64)
		if !ok || err != nil || (what != "started" && what != "alive") {
			continue
		}
		if what == "started" && first != 0 {
			over = true
			break
		}
		if what == "started" {
			first = n
		}
		end = n
	}
	if first == 0 {
		return started, last, fmt.Errorf("the record has no start: %q", data)
	}
	started, last = time.Unix(0, first), time.Unix(0, end)
	if !over && now.Sub(last) < time.Second {
		return started, last, fmt.Errorf("the hanging command is still running (%.1fs so far)", last.Sub(started).Seconds())
	}
	return started, last, nil
}

// pluginExecTimeout is the subject sidecar's ARGOCD_EXEC_TIMEOUT.
func pluginExecTimeout(p argocd.Plugin) time.Duration {
	value := argocd.PluginExecTimeout
	for _, kv := range p.Env {
		if v, ok := strings.CutPrefix(kv, "ARGOCD_EXEC_TIMEOUT="); ok {
			value = v
		}
	}
	d, err := time.ParseDuration(value)
	if err != nil {
		return 90 * time.Second // Argo CD's default when unset or unreadable
	}
	return d
}
