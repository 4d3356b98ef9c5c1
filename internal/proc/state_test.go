package proc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func mustReadStateFile(t *testing.T, path string) []stateEntry {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var entries []stateEntry
	if err := json.Unmarshal(data, &entries); err != nil {
		t.Fatal(err)
	}
	return entries
}

func TestStopFromStateStopsRecordedProcesses(t *testing.T) {
	stateFile := filepath.Join(t.TempDir(), "run", "state.json")
	g := NewGroup(stateFile)
	t.Cleanup(func() { _ = g.Stop(time.Second) })
	var procs []*Process
	for _, name := range []string{"redis-server", "argocd-repo-server"} {
		spec := shSpec(t, name, "sleep 300 & echo up; wait")
		p, err := g.Start(spec)
		if err != nil {
			t.Fatal(err)
		}
		waitLog(t, p, spec.LogPath, "up")
		procs = append(procs, p)
	}

	entries := mustReadStateFile(t, stateFile)
	if len(entries) != 2 {
		t.Fatalf("state file has %d entries, want 2", len(entries))
	}
	for i, e := range entries {
		p := procs[i]
		if e.Name != p.Name() || e.PID != p.PID() || e.PGID != p.PID() || e.StartTime == 0 ||
			len(e.Cmdline) != 3 || e.Cmdline[0] != "/bin/sh" || e.LogPath == "" {
			t.Errorf("entry %d = %+v", i, e)
		}
	}

	res := stopFromStateInOtherProcess(t, stateFile)
	if res.Err != "" {
		t.Fatal(res.Err)
	}
	if want := []string{"argocd-repo-server", "redis-server"}; !slices.Equal(res.Stopped, want) {
		t.Errorf("stopped %v, want %v", res.Stopped, want)
	}
	for _, p := range procs {
		select {
		case <-p.Done():
		case <-time.After(5 * time.Second):
			t.Fatalf("%s still running", p.Name())
		}
		if left := groupMembers(t, p.PID()); len(left) > 0 {
			t.Errorf("%s group still has %v", p.Name(), left)
		}
	}
	if _, err := os.Stat(stateFile); !os.IsNotExist(err) {
		t.Errorf("state file not removed: %v", err)
	}
}

func TestStopFromStateSkipsRecycledPID(t *testing.T) {
	dir := t.TempDir()
	stateFile := filepath.Join(dir, "state.json")
	g := NewGroup(stateFile)
	t.Cleanup(func() { _ = g.Stop(time.Second) })
	p, err := g.Start(shSpec(t, "victim", "sleep 300"))
	if err != nil {
		t.Fatal(err)
	}

	// Pretend the recorded process died and its PID went to this one.
	entries := mustReadStateFile(t, stateFile)
	entries[0].StartTime += 12345
	if err := writeState(stateFile, entries); err != nil {
		t.Fatal(err)
	}

	res := stopFromStateInOtherProcess(t, stateFile)
	if res.Err != "" || len(res.Stopped) != 0 {
		t.Errorf("StopFromState = %v, %q; want nothing stopped", res.Stopped, res.Err)
	}
	if !running(p.PID()) {
		t.Fatal("a process with a recycled PID was killed")
	}
	if _, err := os.Stat(stateFile); !os.IsNotExist(err) {
		t.Errorf("state file not removed: %v", err)
	}
	if err := p.Stop(time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestStopFromStateMissingFile(t *testing.T) {
	stopped, err := StopFromState(filepath.Join(t.TempDir(), "none.json"), time.Second)
	if stopped != nil || err != nil {
		t.Errorf("StopFromState = %v, %v; want nil, nil", stopped, err)
	}
}

func TestStopFromStateCorruptFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(path, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := StopFromState(path, time.Second); err == nil {
		t.Error("no error for a corrupt state file")
	}
}

func TestLiveFromState(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	g := NewGroup(state)
	p, err := g.Start(Spec{Name: "sleeper", Path: "/bin/sleep", Args: []string{"300"}, LogPath: filepath.Join(t.TempDir(), "log")})
	if err != nil {
		t.Fatal(err)
	}
	live, err := LiveFromState(state)
	if err != nil || len(live) != 1 || live[0] != "sleeper" {
		t.Fatalf("live = %v, %v; want [sleeper]", live, err)
	}
	if err := p.Stop(time.Second); err != nil {
		t.Fatal(err)
	}
	if live, err := LiveFromState(state); err != nil || len(live) != 0 {
		t.Fatalf("after stop: live = %v, %v; want none", live, err)
	}
	if live, err := LiveFromState(filepath.Join(t.TempDir(), "missing.json")); err != nil || live != nil {
		t.Fatalf("missing file: %v, %v", live, err)
	}
}

func TestStopGraceShortensTheWaitForAProcessThatIgnoresTERM(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	g := NewGroup(state)
	_, err := g.Start(Spec{Name: "stubborn", Path: "/bin/sh", Args: []string{"-c", `trap "" TERM; sleep 300 & wait`},
		LogPath: filepath.Join(t.TempDir(), "log"), StopGrace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := g.Stop(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("Stop took %s: StopGrace (200ms) was not honoured over the group's 10s", took)
	}
}

func TestIdentity(t *testing.T) {
	self, err := Self()
	if err != nil || !self.Alive() {
		t.Fatalf("Self() = %+v, %v; want alive", self, err)
	}
	if (Identity{PID: self.PID, StartTime: self.StartTime + 1}).Alive() {
		t.Fatal("a different start time (a reused PID) must not count as alive")
	}
}
