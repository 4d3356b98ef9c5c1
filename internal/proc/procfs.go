package proc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/prometheus/procfs"
)

// procStat is the part of /proc/<pid>/stat this package needs.
type procStat struct {
	state     byte   // 'Z' is a zombie, already dead
	pgrp      int    // process group
	startTime uint64 // clock ticks since boot; fixed for the life of a process, so it tells a recycled PID apart
}

// readStat reads /proc/<pid>/stat with prometheus/procfs (which copes with
// a comm holding spaces and parentheses). A process that is gone gives an
// error that is os.ErrNotExist.
func readStat(pid int) (procStat, error) {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return procStat{}, err
	}
	st, err := p.Stat()
	if err != nil {
		return procStat{}, err
	}
	if st.State == "" {
		return procStat{}, fmt.Errorf("parsing /proc/%d/stat: no state", pid)
	}
	return procStat{state: st.State[0], pgrp: st.PGRP, startTime: st.Starttime}, nil
}

// listPIDs returns every process ID under /proc (threads are not listed there).
func listPIDs() ([]int, error) {
	procs, err := procfs.AllProcs()
	if err != nil {
		return nil, fmt.Errorf("listing /proc: %w", err)
	}
	pids := make([]int, 0, len(procs))
	for _, p := range procs {
		pids = append(pids, p.PID)
	}
	return pids, nil
}

func readCmdline(pid int) []string {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return nil
	}
	args, err := p.CmdLine()
	if err != nil {
		return nil
	}
	return args
}

// procName names a process for humans: argv[0]'s base name, because comm is
// cut to 15 bytes ("argocd-repo-ser").
func procName(pid int) string {
	if args := readCmdline(pid); len(args) > 0 && args[0] != "" {
		return filepath.Base(args[0])
	}
	p, err := procfs.NewProc(pid)
	if err != nil {
		return ""
	}
	comm, err := p.Comm()
	if err != nil {
		return ""
	}
	return comm
}

// target is something to stop: a process, and its group when it leads one.
type target struct {
	name      string
	pid       int
	pgid      int
	startTime uint64
}

// groupWide reports whether signals go to the whole group. Only a group
// leader's group is signalled, and never our own group (an adopted process
// may share it), so that stopping cannot hit the harness itself.
func (t target) groupWide() bool {
	return t.pgid > 1 && t.pgid == t.pid && t.pgid != syscall.Getpgrp()
}

// livePIDs lists the processes of t that are still running (zombies are dead
// and excluded). A PID whose start time differs from the recorded one has been
// recycled and is never included. Group members are forked after their leader,
// so a member started earlier than the leader belongs to someone else.
func (t target) livePIDs() ([]int, error) {
	if t.pid <= 1 {
		return nil, nil
	}
	st, err := readStat(t.pid)
	switch {
	case err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ESRCH):
		return nil, fmt.Errorf("checking pid %d: %w", t.pid, err)
	case err == nil && st.startTime != t.startTime:
		return nil, nil // recycled PID: neither it nor its group is ours
	case !t.groupWide():
		if err == nil && st.state != 'Z' {
			return []int{t.pid}, nil
		}
		return nil, nil
	}
	// The leader may be gone while members it forked remain in the group.
	pids, err := listPIDs()
	if err != nil {
		return nil, err
	}
	var live []int
	for _, pid := range pids {
		st, err := readStat(pid)
		if err == nil && st.pgrp == t.pgid && st.state != 'Z' && st.startTime >= t.startTime {
			live = append(live, pid)
		}
	}
	return live, nil
}

func (t target) signal(sig syscall.Signal) error {
	pid := t.pid
	if t.groupWide() {
		pid = -t.pgid
	}
	if err := syscall.Kill(pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("sending %v to %s (pid %d): %w", sig, t.name, pid, err)
	}
	return nil
}

// killWait bounds the wait after SIGKILL, which cannot be caught; a process
// still there after it is stuck in the kernel and is reported, not waited on.
const killWait = 5 * time.Second

// stopTarget sends SIGTERM, waits up to grace for every process of t to be
// gone (and for done, when given, to be closed), then SIGKILLs and waits again.
// signalled reports whether anything was still running to be signalled.
func stopTarget(t target, grace time.Duration, done <-chan struct{}) (signalled bool, err error) {
	var lastErr error
	gone := func() bool {
		live, err := t.livePIDs()
		if err != nil {
			lastErr = err
			return false
		}
		if len(live) > 0 {
			return false
		}
		if done == nil {
			return true
		}
		select {
		case <-done:
			return true
		default:
			return false
		}
	}
	if gone() {
		return false, nil
	}
	if err := t.signal(syscall.SIGTERM); err != nil {
		return true, err
	}
	if pollUntil(time.Now().Add(grace), done, gone) {
		return true, nil
	}
	if err := t.signal(syscall.SIGKILL); err != nil {
		return true, err
	}
	if pollUntil(time.Now().Add(killWait), done, gone) {
		return true, nil
	}
	live, _ := t.livePIDs()
	return true, errors.Join(fmt.Errorf("%s (pid %d) still running %v after SIGKILL: pids %v", t.name, t.pid, killWait, live), lastErr)
}

// pollUntil checks cond with a short backoff until it holds or deadline
// passes; a close of wake (may be nil) triggers an immediate re-check.
func pollUntil(deadline time.Time, wake <-chan struct{}, cond func() bool) bool {
	delay := 5 * time.Millisecond
	for {
		if cond() {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		timer := time.NewTimer(min(delay, left))
		select {
		case <-timer.C:
		case <-wake:
			wake = nil // closed: re-check once, then stop selecting on it
		}
		timer.Stop()
		delay = min(2*delay, 100*time.Millisecond)
	}
}

// Identity names a running process across PID reuse: its PID and its start
// time in /proc.
type Identity struct {
	PID       int    `json:"pid"`
	StartTime uint64 `json:"startTime"`
}

// Self is this process's Identity.
func Self() (Identity, error) {
	st, err := readStat(os.Getpid())
	if err != nil {
		return Identity{}, fmt.Errorf("reading /proc/self/stat: %w", err)
	}
	return Identity{PID: os.Getpid(), StartTime: st.startTime}, nil
}

// Alive says whether the process is still running (not a zombie, and not a
// new process that reuses the PID).
func (id Identity) Alive() bool {
	st, err := readStat(id.PID)
	return err == nil && st.state != 'Z' && st.startTime == id.StartTime
}
