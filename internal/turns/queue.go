package turns

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cmp-conformance/cmp-conformance/internal/files"
)

// place is a waiting run's place in the machine's queue: a file of dir,
// locked for as long as the run waits, named so that the queue's order is
// the names' order: q0- (ahead) before q1-, then the time it began to wait.
// The file is locked before it takes that name, so that no other run finds
// it unlocked and takes it for a dead run's.
type place struct {
	f    *os.File
	name string
}

func enqueue(dir string, ahead bool) (*place, error) {
	tmp, err := os.CreateTemp(dir, ".q-*")
	if err != nil {
		return nil, err
	}
	tmp.Close()
	class := 1
	if ahead {
		class = 0
	}
	p := &place{name: filepath.Join(dir, fmt.Sprintf("q%d-%020d-%s.lock", class, time.Now().UnixNano(), strings.TrimPrefix(filepath.Base(tmp.Name()), ".q-")))}
	p.f, err = files.TryLock(tmp.Name())
	if err == nil && p.f == nil {
		err = errors.New("a new file was locked by another process")
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p.name)
	}
	if err != nil {
		p.release()
		os.Remove(tmp.Name())
		return nil, err
	}
	return p, nil
}

// release leaves the queue.
func (p *place) release() {
	if p != nil && p.f != nil {
		os.Remove(p.name)
		p.f.Close()
		p.f = nil
	}
}

// waitingBefore counts the live runs ahead of me in the queue (all of them
// when me is nil); the place of a run that ended, unlocked with it, is
// removed.
func waitingBefore(dir string, me *place) int {
	names, _ := filepath.Glob(filepath.Join(dir, "q[01]-*.lock"))
	n := 0
	for _, name := range names {
		if me != nil && name >= me.name {
			continue
		}
		f, err := files.TryLock(name)
		if err != nil {
			continue
		}
		if f == nil {
			n++
			continue
		}
		os.Remove(name)
		f.Close()
	}
	return n
}
