// Package turns lets runs on one machine take turns at their bring-ups.
//
// A bring-up (a cluster and Argo CD starting, or Argo CD restarting as
// another version) is the most CPU-hungry minute of a run, and it is bounded
// (--ready-timeout). Runs started side by side (make test's side jobs, go
// test ./... certifying several plugins) that all bring up at once crowd
// one another past that bound on a slow machine: a verdict of the harness's
// making. With turns, at most a few bring-ups run at once, and a run's bound
// starts when its turn does.
package turns

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cmp-conformance/cmp-conformance/internal/files"
)

// Dir is where the machine's turns are held: one lock file per turn.
func Dir() string { return filepath.Join(os.TempDir(), "cmp-conformance-turns") }

// AtOnce is how many bring-ups run at once: one per two cores. A bring-up
// keeps about two cores busy: on 2 cores three side by side took a minute
// each, one alone 13 s; eight side by side, with other runs' suites beside
// them, missed the 2-minute bound (docs/ci-runs.json, fbb6f0f). One after
// another they are done sooner, each and all.
func AtOnce() int { return max(1, runtime.NumCPU()/2) }

// Poll is how often a waiting run tries the turns again.
const Poll = 200 * time.Millisecond

// ErrUnusable is wrapped by Take's errors that come of the folder of turns
// (another user's, a read-only TMPDIR) rather than of the wait: the caller
// may go on without a turn.
var ErrUnusable = errors.New("the folder of bring-up turns is unusable")

// Usable says whether runs can take turns in dir: the folder can be made
// and a turn's file opened. A run that cannot (another user's folder, a
// read-only TMPDIR) goes on without turns (Take's ErrUnusable), and a caller
// that starts several runs at once orders their bring-ups itself instead.
func Usable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%w: %w", ErrUnusable, err)
	}
	f, err := os.OpenFile(slot(dir, 0), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnusable, err)
	}
	return f.Close()
}

// Turn is held by this process until Release.
type Turn struct {
	// Waited is how long taking it took.
	Waited time.Duration
	lock   *os.File
}

// Release gives the turn to the next run. A process that ends, however it
// ends, releases its turn: the kernel drops the lock with the file.
func (t *Turn) Release() {
	if t != nil && t.lock != nil {
		t.lock.Close()
		t.lock = nil
	}
}

// Take waits until one of n turns in dir is free and takes it, naming
// itself what (read by waiting runs). waiting is called once, when every
// turn is held, with what the holders named themselves. Cancelling ctx stops
// the wait.
//
// Waiting runs take turns in the order they began to wait, but ahead: that
// is for a run that holds a running environment (a switch of Argo CD's
// version), and goes before every run waiting for a first bring-up. Turns
// used to go to whoever tried first after a release: in make test's side
// step an upgrade path, its longest job, waited 79 s at its first hop and
// 98 s at its bring-up while later runs went before it.
func Take(ctx context.Context, dir string, n int, what string, ahead bool, waiting func(holders []string)) (*Turn, error) {
	if err := Usable(dir); err != nil {
		return nil, err
	}
	start := time.Now()
	tick := time.NewTicker(Poll)
	defer tick.Stop()
	told, queued := false, false
	var me *place
	defer func() { me.release() }()
	for {
		// Only the first n of the queue try: a free turn is theirs.
		if waitingBefore(dir, me) < n {
			f, err := tryAny(dir, n)
			if err != nil {
				return nil, err
			}
			if f != nil {
				// Best effort: only a waiting run's message reads it.
				_ = f.Truncate(0)
				_, _ = f.WriteAt([]byte(fmt.Sprintf("pid %d: %s\n", os.Getpid(), what)), 0)
				return &Turn{Waited: time.Since(start), lock: f}, nil
			}
		}
		if !queued {
			queued = true
			me, _ = enqueue(dir, ahead) // without a place it waits for an empty queue
		}
		if !told && waiting != nil {
			waiting(holders(dir, n))
			told = true
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting %s for a bring-up turn (%d at once on this machine, held in %s): %w",
				time.Since(start).Round(time.Second), n, dir, context.Cause(ctx))
		case <-tick.C:
		}
	}
}

// tryAny takes the first free turn, or returns nil when all are held.
func tryAny(dir string, n int) (*os.File, error) {
	for i := range n {
		f, err := files.TryLock(slot(dir, i))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrUnusable, err)
		}
		if f != nil {
			return f, nil
		}
	}
	return nil, nil
}

func slot(dir string, i int) string { return filepath.Join(dir, strconv.Itoa(i)+".lock") }

// holders reads what the holders of the n turns named themselves. A name
// whose process is gone is an earlier holder's: the lock is held by one that
// wrote none (not this harness), and is left out.
func holders(dir string, n int) []string {
	var out []string
	for i := range n {
		b, err := os.ReadFile(slot(dir, i))
		s := strings.TrimSpace(string(b))
		var pid int
		if _, perr := fmt.Sscanf(s, "pid %d:", &pid); err != nil || perr != nil || !alive(pid) {
			continue
		}
		out = append(out, s)
	}
	return out
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
