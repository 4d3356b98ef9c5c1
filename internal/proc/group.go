package proc

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// stateEntry is one process in the state file.
type stateEntry struct {
	Name      string   `json:"name"`
	PID       int      `json:"pid"`
	PGID      int      `json:"pgid"`
	StartTime uint64   `json:"startTime"` // /proc/<pid>/stat field 22, to detect PID reuse
	Cmdline   []string `json:"cmdline"`
	LogPath   string   `json:"logPath,omitempty"`
	// StopGrace is Spec.StopGrace, kept so `env down` honours it too.
	StopGrace time.Duration `json:"stopGrace,omitempty"`
}

// grace is the grace to stop this entry with, given the caller's.
func (e stateEntry) grace(def time.Duration) time.Duration {
	if e.StopGrace > 0 && e.StopGrace < def {
		return e.StopGrace
	}
	return def
}

func (e stateEntry) target() target {
	return target{name: e.Name, pid: e.PID, pgid: e.PGID, startTime: e.StartTime}
}

type member struct {
	entry stateEntry
	proc  *Process // nil for an adopted process
}

// Group starts processes in order, stops them in reverse, and mirrors them
// into a state file so that a later process (`env down`) can stop them too.
type Group struct {
	stateFile string
	// Outlive is Spec.Outlive for every process the group starts: set it,
	// before the first Start, for processes another command stops (env down).
	Outlive bool

	mu      sync.Mutex
	members []member
	// slowest is the member the last Stop waited longest for.
	slowest     string
	slowestTook time.Duration
}

// NewGroup returns an empty group; stateFile "" keeps no state file.
func NewGroup(stateFile string) *Group {
	return &Group{stateFile: stateFile}
}

// recordGrace is the grace for stopping a process that could not be recorded:
// an unrecorded process must not be left running.
const recordGrace = 5 * time.Second

// Start starts spec and rewrites the state file. If the state file cannot be
// written the process is stopped again, since nothing else could find it.
func (g *Group) Start(spec Spec) (*Process, error) {
	spec.Outlive = spec.Outlive || g.Outlive
	p, err := Start(spec)
	if err != nil {
		return nil, err
	}
	e := stateEntry{
		Name:      p.name,
		PID:       p.t.pid,
		PGID:      p.t.pgid,
		StartTime: p.t.startTime,
		Cmdline:   p.cmdline,
		LogPath:   spec.LogPath,
		StopGrace: spec.StopGrace,
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.members = append(g.members, member{entry: e, proc: p})
	if err := g.writeLocked(); err != nil {
		g.members = g.members[:len(g.members)-1]
		return nil, errors.Join(fmt.Errorf("recording %s: %w", p.name, err), p.Stop(recordGrace))
	}
	return p, nil
}

// Adopt records a process started by something else (e.g. a daemon that
// forked away) so that Stop and StopFromState stop it too.
func (g *Group) Adopt(name string, pid int) error {
	if pid <= 1 {
		return fmt.Errorf("adopting %s: invalid pid %d", name, pid)
	}
	st, err := readStat(pid)
	if err != nil {
		return fmt.Errorf("adopting %s (pid %d): %w", name, pid, err)
	}
	if st.state == 'Z' {
		return fmt.Errorf("adopting %s (pid %d): process has exited", name, pid)
	}
	e := stateEntry{Name: name, PID: pid, PGID: st.pgrp, StartTime: st.startTime, Cmdline: readCmdline(pid)}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.members = append(g.members, member{entry: e})
	if err := g.writeLocked(); err != nil {
		g.members = g.members[:len(g.members)-1]
		return fmt.Errorf("recording adopted %s (pid %d): %w", name, pid, err)
	}
	return nil
}

// Stop stops every member at once, each within its grace, continuing past
// failures (errors are joined): a teardown takes as long as its slowest
// member, not the sum of their graces. The state file is then removed, or,
// if some member could not be stopped, rewritten to hold just those for a
// later retry. Slowest then names the member that took longest.
func (g *Group) Stop(grace time.Duration) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	errs := make([]error, len(g.members))
	took := make([]time.Duration, len(g.members))
	var wg sync.WaitGroup
	for i, m := range g.members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			if m.proc != nil {
				errs[i] = m.proc.Stop(m.entry.grace(grace))
			} else if _, err := stopTarget(m.entry.target(), m.entry.grace(grace), nil); err != nil {
				errs[i] = fmt.Errorf("stopping %s: %w", m.entry.Name, err)
			}
			took[i] = time.Since(start)
		}()
	}
	wg.Wait()
	var failed []member
	g.slowest, g.slowestTook = "", 0
	for i, m := range g.members {
		if errs[i] != nil {
			failed = append(failed, m)
		}
		if took[i] > g.slowestTook {
			g.slowest, g.slowestTook = m.entry.Name, took[i]
		}
	}
	g.members = failed
	if err := g.writeLocked(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Slowest is the member the last Stop waited longest for, and how long.
func (g *Group) Slowest() (string, time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.slowest, g.slowestTook
}

// StopSome stops the members named in graces at once (the latest of each
// name, each within its grace) and forgets those it stopped: an upgrade's hop
// stops every process of Argo CD's binary together, as a rollout replaces
// their pods, in the time of the slowest.
func (g *Group) StopSome(graces map[string]time.Duration) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	latest := map[string]int{}
	for i, m := range g.members {
		if _, ok := graces[m.entry.Name]; ok && m.proc != nil {
			latest[m.entry.Name] = i
		}
	}
	var errs []error
	for name := range graces {
		if _, ok := latest[name]; !ok {
			errs = append(errs, fmt.Errorf("no running process named %s", name))
		}
	}
	stopped := make([]bool, len(g.members))
	stopErrs := make([]error, len(g.members))
	var wg sync.WaitGroup
	for name, i := range latest {
		stopped[i] = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := g.members[i]
			stopErrs[i] = m.proc.Stop(m.entry.grace(graces[name]))
		}()
	}
	wg.Wait()
	var kept []member
	for i, m := range g.members {
		if stopped[i] && stopErrs[i] == nil {
			continue
		}
		errs = append(errs, stopErrs[i])
		kept = append(kept, m)
	}
	g.members = kept
	return errors.Join(append(errs, g.writeLocked())...)
}

// StopOne stops the member named name (the latest, if started twice) and
// forgets it, so that it can be started again under the same name: a plugin
// service restarted in the middle of a run.
func (g *Group) StopOne(name string, grace time.Duration) error {
	return g.StopSome(map[string]time.Duration{name: grace})
}

func (g *Group) writeLocked() error {
	if g.stateFile == "" {
		return nil
	}
	entries := make([]stateEntry, len(g.members))
	for i, m := range g.members {
		entries[i] = m.entry
	}
	return writeState(g.stateFile, entries)
}

// writeState replaces the state file atomically (temp file + rename) so that
// a concurrent reader never sees half a list; an empty list removes it.
func writeState(path string, entries []stateEntry) error {
	if len(entries) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("removing state file: %w", err)
		}
		return nil
	}
	data, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding state file: %w", err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating state file directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("creating temporary state file: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	_, err = tmp.Write(append(data, '\n'))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing temporary state file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replacing state file: %w", err)
	}
	return nil
}

// StopFromState stops, from any process, what a Group recorded in stateFile:
// in reverse order, each entry whose PID is alive with the recorded start time
// (a recycled PID is never signalled) gets SIGTERM to its group, up to grace
// to disappear from /proc, then SIGKILL. stopped names the entries that were
// still running. The file is removed, or rewritten with only the entries that
// could not be stopped. A missing state file returns (nil, nil).
func StopFromState(stateFile string, grace time.Duration) (stopped []string, err error) {
	entries, err := readStateFile(stateFile)
	if err != nil || entries == nil {
		return nil, err
	}
	var errs []error
	var failed []stateEntry
	for _, e := range slices.Backward(entries) {
		signalled, err := stopTarget(e.target(), e.grace(grace), nil)
		if err != nil {
			errs = append(errs, fmt.Errorf("stopping %s: %w", e.Name, err))
			failed = append(failed, e)
		}
		if signalled {
			stopped = append(stopped, e.Name)
		}
	}
	slices.Reverse(failed)
	if err := writeState(stateFile, failed); err != nil {
		errs = append(errs, err)
	}
	return stopped, errors.Join(errs...)
}

// LiveFromState names the entries of stateFile still running (alive with
// the recorded start time), without touching them: it tells a live
// environment from the stale record of a killed one.
func LiveFromState(stateFile string) ([]string, error) {
	entries, err := readStateFile(stateFile)
	if err != nil || entries == nil {
		return nil, err
	}
	var live []string
	for _, e := range entries {
		if pids, err := e.target().livePIDs(); err == nil && len(pids) > 0 {
			live = append(live, e.Name)
		}
	}
	return live, nil
}

// readStateFile reads a Group's state file; a missing file is (nil, nil).
func readStateFile(stateFile string) ([]stateEntry, error) {
	data, err := os.ReadFile(stateFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading state file: %w", err)
	}
	var entries []stateEntry
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("parsing state file %s: %w", stateFile, err)
	}
	return entries, nil
}
