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
	// The other application is rendered within a second of the hang's
	// start (0.7 s measured on a loaded machine); the deadline is ten times that.
	Deadline: hangDeadline,
	Test: func(ctx context.Context, s *Suite) {
		p := s.Plugin(RoleDiscoverCommand)
		marker := p.Name + ".marker"
		// The plugin writes its record in a folder of the run (its
		// container's /tmp, for an image); the check reads it from this host.
		pluginDir, hostDir := s.Env.PluginScratch(p.FullName())
		name := dsl.UniqueName("cmpc-find-hang")
		plugged, record := path.Join(pluginDir, name), filepath.Join(hostDir, name)
		// Registered before the application and after it, so that it runs
		// both after its deletion (a hang a last refresh began) and before
		// it: where no deadline stops a hang, the controller would hold the
		// deletion until the hang ends.
		ginkgo.DeferCleanup(endHang, record, marker, true)
		// Unvalidated: the API server's validation runs discovery too, and
		// would wait out the deadline before the application exists.
		hung := s.Given(ctx).NamePrefix("disc-cmd-hang").Path("contract-app").File(marker, []byte("hang "+plugged+"\n")).
			When().CreateAppUnvalidated().Then().Expect(dsl.NoActionError())
		ginkgo.DeferCleanup(endHang, record, marker, false)
		child := contract.ChildRecord(record)
		ginkgo.By("the find command hangs, with a child it started")
		gomega.Eventually(ctx, func() error { return hangStarted(record, child) }).
			WithTimeout(s.Env.Timeouts.Refresh).WithPolling(s.Env.Timeouts.Poll).Should(gomega.Succeed())

		ginkgo.By("meanwhile, an application the same command matches at once: rendered")
		// Its find command records when it began: held up by the hang, it
		// begins only once the hang has stopped, however fast or slow the
		// machine renders (a render that is merely slow began in time).
		besideName := dsl.UniqueName("cmpc-find-beside")
		besidePlugged, besideRecord := path.Join(pluginDir, besideName), filepath.Join(hostDir, besideName)
		beside := s.Given(ctx).NamePrefix("disc-cmd-beside").Path("contract-app").File(marker, []byte("match "+besidePlugged+"\n")).
			When().CreateApp().Then()
		// Creating it renders it (the API server's validation): held up
		// there, it fails with the repo-server's deadline.
		gomega.Expect(beside.ActionErr()).NotTo(gomega.HaveOccurred(),
			"the other application could not be created while the hanging find command ran: one application's discovery held up another's")
		rendered(s, beside, RoleDiscoverCommand)
		renderedAt := time.Now()

		ginkgo.By("the hanging command: stopped by the repo-server's deadline")
		repoTimeout := s.RepoServerTimeout()
		var started, last time.Time
		gomega.Eventually(ctx, func() error {
			var err error
			started, last, err = hangSpan(record, time.Now())
			return err
		}).WithTimeout(repoTimeout+10*time.Second).WithPolling(s.Env.Timeouts.Poll).Should(gomega.Succeed(),
			"the find command was not stopped by the repo-server's deadline (%s): it was still running %s later", repoTimeout, 10*time.Second)
		ran := last.Sub(started)
		began, err := firstStart(besideRecord)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the other application was rendered, yet its find command left no record")
		observe("the hanging find command was stopped %.1fs after it began (repo-server timeout %s); the other application's find command began %.1fs after it, and the application was rendered %.1fs after it",
			ran.Seconds(), repoTimeout, began.Sub(started).Seconds(), renderedAt.Sub(started).Seconds())
		gomega.Expect(ran).To(gomega.BeNumerically("<=", repoTimeout+execSlack),
			"the find command ran %.1fs, past the repo-server's deadline of %s", ran.Seconds(), repoTimeout)
		// Its last sign of life, against the other's start: the plugin's
		// record has a line every 250 ms.
		gomega.Expect(began.Before(last)).To(gomega.BeTrue(),
			"the other application's find command began only after the hanging one had stopped (it ran %.1fs; the other began %.1fs after it): one application's discovery held up another's",
			ran.Seconds(), began.Sub(started).Seconds())
		ginkgo.By("the process it started: stopped with it")
		gomega.Eventually(ctx, func() error {
			_, err := stoppedAfter(child, time.Now())
			return err
		}).WithTimeout(execSlack).WithPolling(s.Env.Timeouts.Poll).Should(gomega.Succeed(),
			"the process the find command started (pid %d) kept running after the command was stopped: stopping a command must stop what it started", hangPID(child))
		observeHangOutcome(hung)
	},
}

// firstStart is the earliest "started <unix nanoseconds>" of a record a
// find command of mode "match RECORD" wrote (one per run of the command).
func firstStart(record string) (time.Time, error) {
	data, err := os.ReadFile(record)
	if err != nil {
		return time.Time{}, err
	}
	var first int64
	for _, line := range strings.Split(string(data), "\n") {
		at, ok := strings.CutPrefix(line, "started ")
		n, err := strconv.ParseInt(at, 10, 64)
		if ok && err == nil && (first == 0 || n < first) {
			first = n
		}
	}
	if first == 0 {
		return time.Time{}, fmt.Errorf("%s records no start: %q", filepath.Base(record), data)
	}
	return time.Unix(0, first), nil
}

// hangStarted says whether every record has begun.
func hangStarted(records ...string) error {
	for _, r := range records {
		data, err := os.ReadFile(r)
		if err != nil || !strings.Contains(string(data), "\nstarted ") {
			return fmt.Errorf("%s has not begun to hang: was the application's discovery run? (%v)", filepath.Base(r), err)
		}
	}
	return nil
}

// hangPIDs are the pids a hang record names, one per hang, in order.
func hangPIDs(record string) []int {
	data, _ := os.ReadFile(record)
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
func hangPID(record string) int {
	if pids := hangPIDs(record); len(pids) > 0 {
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
func endHang(record, marker string, last bool) {
	for _, r := range []string{record, contract.ChildRecord(record)} {
		for _, pid := range hangPIDs(r) {
			cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			args := strings.Split(string(cmdline), "\x00")
			if err == nil && (slices.Contains(args, marker) || slices.ContainsFunc(args, func(a string) bool { return filepath.Base(a) == filepath.Base(contract.ChildRecord(record)) })) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		if last {
			_ = os.Remove(r)
		}
	}
}
