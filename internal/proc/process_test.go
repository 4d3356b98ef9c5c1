package proc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestStopKillsWholeGroup(t *testing.T) {
	spec := shSpec(t, "tree", "sleep 300 & sleep 300 & echo started; wait")
	p := startT(t, spec)
	waitLog(t, p, spec.LogPath, "started")

	members := groupMembers(t, p.PID())
	if len(members) < 3 { // sh and both sleeps
		t.Fatalf("group %d has %v, want sh and two sleeps", p.PID(), members)
	}
	if err := p.Stop(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	for _, pid := range members {
		if running(pid) {
			t.Errorf("pid %d of the group survived Stop", pid)
		}
	}
	if left := groupMembers(t, p.PID()); len(left) > 0 {
		t.Errorf("group %d still has %v", p.PID(), left)
	}
	select {
	case <-p.Done():
	default:
		t.Error("Done not closed after Stop")
	}
	if err := p.Stop(time.Second); err != nil { // idempotent
		t.Errorf("second Stop: %v", err)
	}
}

func TestStopKillsAfterGrace(t *testing.T) {
	spec := shSpec(t, "stubborn", `trap "" TERM; sleep 300 & echo trapped; wait`)
	p := startT(t, spec)
	waitLog(t, p, spec.LogPath, "trapped")

	const grace = 300 * time.Millisecond
	start := time.Now()
	if err := p.Stop(grace); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if took < grace || took > grace+time.Second {
		t.Errorf("Stop took %v, want just over the %v grace", took, grace)
	}
	if err := p.ExitError(); err == nil || !strings.Contains(err.Error(), "stubborn exited: signal: killed") {
		t.Errorf("ExitError = %v, want killed", err)
	}
	if left := groupMembers(t, p.PID()); len(left) > 0 {
		t.Errorf("group still has %v", left)
	}
}

func TestStopAfterExitStopsLeftovers(t *testing.T) {
	spec := shSpec(t, "leaver", "sleep 300 & echo bye")
	p := startT(t, spec)
	<-p.Done()
	if err := p.ExitError(); err != nil {
		t.Fatalf("ExitError = %v, want nil for status 0", err)
	}
	if left := groupMembers(t, p.PID()); len(left) != 1 {
		t.Fatalf("want the orphaned sleep in the group, have %v", left)
	}
	if err := p.Stop(time.Second); err != nil {
		t.Fatal(err)
	}
	if left := groupMembers(t, p.PID()); len(left) > 0 {
		t.Errorf("group still has %v", left)
	}
}

func TestExitErrorAndTail(t *testing.T) {
	spec := shSpec(t, "failer", `for i in 1 2 3 4 5; do echo line$i; done; echo oops >&2; exit 3`)
	p := startT(t, spec)
	<-p.Done()
	if err := p.ExitError(); err == nil || err.Error() != "failer exited: exit status 3" {
		t.Errorf("ExitError = %v", err)
	}
	if got, want := p.Tail(2), "line5\noops"; got != want {
		t.Errorf("Tail(2) = %q, want %q", got, want)
	}
	if got := p.Tail(100); !strings.HasPrefix(got, "line1\n") || !strings.HasSuffix(got, "oops") {
		t.Errorf("Tail(100) = %q", got)
	}
}

func TestTailLargeLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.log")
	var b strings.Builder
	for range 5000 {
		b.WriteString("some log line that is not short at all\n")
	}
	b.WriteString("second to last\nlast\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := tailFile(path, 2)
	if err != nil || got != "second to last\nlast" {
		t.Errorf("tailFile = %q, %v", got, err)
	}
}

func TestEnvIsNotInherited(t *testing.T) {
	t.Setenv("PROC_TEST_LEAK", "leaked")
	spec := shSpec(t, "env", `echo "leak=$PROC_TEST_LEAK own=$OWN"`, "OWN=mine")
	p := startT(t, spec)
	<-p.Done()
	if got := p.Tail(1); got != "leak= own=mine" {
		t.Errorf("child saw %q", got)
	}
}

func TestStartFailure(t *testing.T) {
	_, err := Start(Spec{Name: "missing", Path: "/nonexistent/bin", LogPath: filepath.Join(t.TempDir(), "x.log")})
	if err == nil || !strings.Contains(err.Error(), "starting missing") {
		t.Errorf("err = %v", err)
	}
}

// TestGroupStopsEveryMemberAtOnce: members that each take a second to end
// after SIGTERM stop in about a second, not three, and Slowest names one.
func TestGroupStopsEveryMemberAtOnce(t *testing.T) {
	dir := t.TempDir()
	order := filepath.Join(dir, "order")
	g := NewGroup(filepath.Join(dir, "state.json"))
	t.Cleanup(func() { _ = g.Stop(time.Second) })
	names := []string{"first", "second", "third"}
	for _, name := range names {
		spec := shSpec(t, name, `trap 'sleep 1; echo $NAME >> "$ORDER"; exit 0' TERM; sleep 300 & echo ready; wait`,
			"NAME="+name, "ORDER="+order)
		p, err := g.Start(spec)
		if err != nil {
			t.Fatal(err)
		}
		waitLog(t, p, spec.LogPath, "ready")
	}
	start := time.Now()
	if err := g.Stop(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 2500*time.Millisecond {
		t.Errorf("stopping three members took %s: one after another, not at once", took)
	}
	data, err := os.ReadFile(order)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(string(data))
	slices.Sort(got)
	if want := []string{"first", "second", "third"}; !slices.Equal(got, want) {
		t.Errorf("stopped by SIGTERM: %v, want %v", got, want)
	}
	if name, took := g.Slowest(); !slices.Contains(names, name) || took < time.Second {
		t.Errorf("slowest %q %s", name, took)
	}
	if _, err := os.Stat(filepath.Join(dir, "state.json")); !os.IsNotExist(err) {
		t.Errorf("state file still there after Stop: %v", err)
	}
}

func TestGroupStopsAdoptedDaemon(t *testing.T) {
	// setsid detaches sleep into its own session and group, as a daemon would.
	spec := shSpec(t, "launcher", `setsid sleep 300 & echo "pid=$!"`)
	launcher := startT(t, spec)
	<-launcher.Done()
	var pid int
	if _, err := fmt.Sscanf(launcher.Tail(1), "pid=%d", &pid); err != nil {
		t.Fatalf("parsing %q: %v", launcher.Tail(1), err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })

	g := NewGroup(filepath.Join(t.TempDir(), "state.json"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// setsid has run once the daemon leads its own group.
	if err := WaitFor(ctx, nil, "daemon in its own group", func(context.Context) error {
		if f := statFields(pid); len(f) < 3 || f[2] != strconv.Itoa(pid) {
			return fmt.Errorf("stat %v", f)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := g.Adopt("daemon", pid); err != nil {
		t.Fatal(err)
	}
	if err := g.Stop(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	if running(pid) {
		t.Errorf("adopted pid %d survived Group.Stop", pid)
	}
	if err := g.Adopt("gone", pid); err == nil {
		t.Error("Adopt of a stopped pid succeeded")
	}
}

// TestGroupStopSomeAtOnce: the named members, each a second to end after
// SIGTERM, stop together in about a second; the others keep running and stay
// in the state; a name that runs nothing is an error.
func TestGroupStopSomeAtOnce(t *testing.T) {
	dir := t.TempDir()
	g := NewGroup(filepath.Join(dir, "state.json"))
	t.Cleanup(func() { _ = g.Stop(time.Second) })
	procs := map[string]*Process{}
	for _, name := range []string{"first", "second", "other"} {
		spec := shSpec(t, name, `trap 'sleep 1; exit 0' TERM; sleep 300 & echo ready; wait`)
		p, err := g.Start(spec)
		if err != nil {
			t.Fatal(err)
		}
		waitLog(t, p, spec.LogPath, "ready")
		procs[name] = p
	}
	start := time.Now()
	if err := g.StopSome(map[string]time.Duration{"first": 5 * time.Second, "second": 5 * time.Second}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 1800*time.Millisecond {
		t.Errorf("stopping two members took %s: one after another, not at once", took)
	}
	if running(procs["first"].PID()) || running(procs["second"].PID()) {
		t.Error("a named member still runs after StopSome")
	}
	if !running(procs["other"].PID()) {
		t.Error("StopSome stopped a member it was not given")
	}
	live, err := LiveFromState(filepath.Join(dir, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(live) != 1 || live[0] != "other" {
		t.Errorf("the state holds %v, want only other", live)
	}
	if err := g.StopSome(map[string]time.Duration{"first": time.Second}); err == nil {
		t.Error("StopSome of a stopped member succeeded")
	}
}

func TestGroupStopOneThenStartAgain(t *testing.T) {
	dir := t.TempDir()
	g := NewGroup(filepath.Join(dir, "state.json"))
	t.Cleanup(func() { _ = g.Stop(time.Second) })
	spec := shSpec(t, "service", `echo ready; exec sleep 300`)
	first, err := g.Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	waitLog(t, first, spec.LogPath, "ready")
	if err := g.StopOne("service", time.Second); err != nil {
		t.Fatal(err)
	}
	if running(first.PID()) {
		t.Fatalf("pid %d still running after StopOne", first.PID())
	}
	if err := g.StopOne("service", time.Second); err == nil {
		t.Error("StopOne of a stopped member succeeded")
	}
	second, err := g.Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	live, err := LiveFromState(filepath.Join(dir, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(live) != 1 || !running(second.PID()) {
		t.Errorf("after the restart the state holds %v, want the one live service", live)
	}
}
