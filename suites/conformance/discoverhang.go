package conformance

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/plugins/contract"
)

// DISC-009 is issue 17's "a find command that hangs": the docs say plugin
// commands run under the repo-server's timeouts, and a hung discovery
// script is a plugin author's everyday fault (a network call in find).
var discFindCommandHang = Check{
	ID: "DISC-009", Title: "a discover.find.command that hangs is stopped with the processes it started by the repo-server's deadline, and holds up no other application",
	Needs: []dsl.Ability{dsl.AbilityPluginScratch},
	Area:  Discover, Level: Core, Versions: ">=2.8.0", Requires: []Feature{Discovery}, Roles: []Role{RoleDiscoverCommand},
	Upstream: []string{discoverDocs},
	// The hang is waited out: ten seconds, under a user's shortened timeout.
	// Not argocd-server's: the other application's validation waits there
	// for the hang, which the harness starts only once that validation's
	// find command has begun (a loaded machine took 6.7 s to begin it and
	// 4 s to create the hanging application: past 10 s, a harness-made
	// "held up another's" for two witnesses that meet the check).
	Deadline: hangDeadline, ServerKeepsDeadline: true,
	Test: func(ctx context.Context, s *Suite) {
		p := s.Plugin(RoleDiscoverCommand)
		marker := p.Name + ".marker"
		// The plugin writes its records in a scratch folder (a folder of the
		// run, or its container's /tmp read from beside it: dsl.Scratch).
		sc := s.Env.PluginScratch(p.FullName())
		name, besideName := dsl.UniqueName("cmpc-find-hang"), dsl.UniqueName("cmpc-find-beside")
		plugged, child := path.Join(sc.Dir(), name), contract.ChildRecord(name)

		// The other application's find command begins first and waits for
		// the hang to begin, recording whether it did: the overlap is seen
		// by the plugin itself, however slowly the machine brings either
		// application to its find command. Argo CD running one discovery at
		// a time never lets the hang begin while the other waits.
		ginkgo.By("an application whose find command waits for another's to hang: being created")
		await := fmt.Sprintf("await %s %s\n", plugged, path.Join(sc.Dir(), besideName))
		besideCreated := s.Given(ctx).NamePrefix("disc-cmd-beside").Path("contract-app").File(marker, []byte(await)).
			When().CreateAppInBackground()
		gomega.Eventually(ctx, func() error { _, _, _, err := awaited(ctx, sc, besideName); return err }).
			WithTimeout(s.Env.Timeouts.Refresh).WithPolling(s.Env.Timeouts.Poll).Should(gomega.Succeed(),
			"the application's creation never ran its find command")

		ginkgo.By("meanwhile, an application whose find command hangs, with a child it started")
		// Registered before the application and after it, so that it runs
		// both after its deletion (a hang a last refresh began) and before
		// it: where no deadline stops a hang, the controller would hold the
		// deletion until the hang ends.
		ginkgo.DeferCleanup(endHang, sc, name, marker, true)
		// Unvalidated: the API server's validation runs discovery too, and
		// would wait out the deadline before the application exists.
		hung := s.Given(ctx).NamePrefix("disc-cmd-hang").Path("contract-app").File(marker, []byte("hang "+plugged+"\n")).
			When().CreateAppUnvalidated().Then().Expect(dsl.NoActionError())
		ginkgo.DeferCleanup(endHang, sc, name, marker, false)

		ginkgo.By("the waiting find command saw the hang begin, and its application was created and rendered")
		beside := besideCreated().Then()
		gomega.Expect(beside.ActionErr()).NotTo(gomega.HaveOccurred(),
			"the other application could not be created while the hanging find command ran: one application's discovery held up another's")
		began, saw, unseen, err := awaited(ctx, sc, besideName)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		// "unseen" (its wait ran out), or no verdict at all: the request's
		// deadline stopped it while it waited.
		how := fmt.Sprintf("waited %s", contract.AwaitLimit)
		if !unseen {
			how = fmt.Sprintf("was stopped after waiting %.1fs", time.Since(began).Seconds())
		}
		gomega.Expect(saw.IsZero()).To(gomega.BeFalse(),
			"the other application's find command %s for the hanging one to begin, and it never began meanwhile: one application's discovery held up another's", how)
		// Its controller's render runs under this check's 10 s: one that a
		// slow machine took longer over is asked again, as in FAULT-001.
		beside.ExpectWithin(s.Env.Timeouts.AppSynced, dsl.RefreshingWhile(dsl.SourceTypeIs(v1alpha1.ApplicationSourceTypePlugin),
			"ComparisonError", deadlineStruck, s.RepoServerTimeout()+2*time.Second))
		rendered(s, beside, RoleDiscoverCommand)
		gomega.Eventually(ctx, func() error { return hangStarted(ctx, sc, name, child) }).
			WithTimeout(s.Env.Timeouts.Refresh).WithPolling(s.Env.Timeouts.Poll).Should(gomega.Succeed())

		ginkgo.By("the hanging command: stopped by the repo-server's deadline")
		repoTimeout := s.RepoServerTimeout()
		var started, last time.Time
		gomega.Eventually(ctx, func() error {
			var err error
			started, last, err = spanOf(ctx, sc, name)
			return err
		}).WithTimeout(repoTimeout+10*time.Second).WithPolling(s.Env.Timeouts.Poll).Should(gomega.Succeed(),
			"the find command was not stopped by the repo-server's deadline (%s): it was still running %s later", repoTimeout, 10*time.Second)
		ran := last.Sub(started)
		observe("the other application's find command saw the hang begin %.1fs after it had begun itself; the hanging find command was stopped %.1fs after it began (repo-server timeout %s)",
			saw.Sub(began).Seconds(), ran.Seconds(), repoTimeout)
		gomega.Expect(ran).To(gomega.BeNumerically("<=", repoTimeout+execSlack),
			"the find command ran %.1fs, past the repo-server's deadline of %s", ran.Seconds(), repoTimeout)
		ginkgo.By("the process it started: stopped with it")
		gomega.Eventually(ctx, func() error {
			_, _, err := spanOf(ctx, sc, child)
			return err
		}).WithTimeout(execSlack).WithPolling(s.Env.Timeouts.Poll).Should(gomega.Succeed(),
			"the process the find command started (pid %d) kept running after the command was stopped: stopping a command must stop what it started", hangPID(ctx, sc, child))
		observeHangOutcome(hung)
	},
}

// awaited reads the record of a find command of mode "await HANG RECORD"
// (contract.Await): when its first run began, when it saw the hang begin
// (zero when it did not), and whether it waited in vain to its end
// ("unseen"; neither when the request's deadline stopped it). An error
// until that run has begun.
func awaited(ctx context.Context, sc dsl.Scratch, name string) (began, saw time.Time, unseen bool, err error) {
	data, _, err := sc.Read(ctx, name)
	if err != nil {
		return began, saw, false, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		word, at, _ := strings.Cut(line, " ")
		n, perr := strconv.ParseInt(at, 10, 64)
		switch {
		case word == "started" && perr == nil && began.IsZero():
			began = time.Unix(0, n)
		case word == "saw" && perr == nil && !began.IsZero():
			return began, time.Unix(0, n), false, nil
		case word == "unseen" && !began.IsZero():
			return began, saw, true, nil
		}
	}
	if began.IsZero() {
		return began, saw, false, fmt.Errorf("%s records no start: %q", name, data)
	}
	return began, saw, false, nil
}

// hangStarted says whether every record has begun.
func hangStarted(ctx context.Context, sc dsl.Scratch, names ...string) error {
	for _, r := range names {
		data, _, err := sc.Read(ctx, r)
		if err != nil || !strings.Contains(string(data), "\nstarted ") {
			return fmt.Errorf("%s has not begun to hang: was the application's discovery run? (%v)", r, err)
		}
	}
	return nil
}

// hangPIDs are the pids a hang record names, one per hang, in order.
func hangPIDs(data []byte) []int {
	var pids []int
	for _, line := range strings.Split(string(data), "\n") {
		if n, ok := strings.CutPrefix(line, "pid "); ok {
			if pid, err := strconv.Atoi(n); err == nil && pid > 0 {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// hangPID is the pid of a record's first hang (0 when none).
func hangPID(ctx context.Context, sc dsl.Scratch, name string) int {
	data, _, _ := sc.Read(ctx, name)
	if pids := hangPIDs(data); len(pids) > 0 {
		return pids[0]
	}
	return 0
}

// observeHangOutcome reports what the user of the hanging application sees:
// the docs do not say, so it is not judged.
func observeHangOutcome(cons *dsl.Consequences) {
	app, err := cons.App()
	if err != nil {
		observe("reading the hanging application: %v", err)
		return
	}
	var conds []string
	for _, c := range app.Status.Conditions {
		conds = append(conds, fmt.Sprintf("%s: %.160s", c.Type, c.Message))
	}
	observe("the hanging application: source type %q, sync %q, conditions %q", app.Status.SourceType, app.Status.Sync.Status, conds)
}

// endHang kills what a hang record names if it still runs on this host (a
// run whose Argo CD did not stop it, or a witness's escaped child): only a
// process whose command line names the marker (the find command) or the
// record (its child). Pids a container recorded mean nothing here, and
// that check keeps them from killing anything; the container goes at the
// end of the run. The last call removes the records.
func endHang(ctx context.Context, sc dsl.Scratch, name, marker string, last bool) {
	for _, r := range []string{name, contract.ChildRecord(name)} {
		data, _, _ := sc.Read(ctx, r)
		for _, pid := range hangPIDs(data) {
			cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			args := strings.Split(string(cmdline), "\x00")
			if err == nil && (slices.Contains(args, marker) || slices.ContainsFunc(args, func(a string) bool { return filepath.Base(a) == contract.ChildRecord(name) })) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		if last {
			_ = sc.Remove(ctx, r)
		}
	}
}
