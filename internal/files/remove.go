package files

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
)

// RemoveAll removes dir and everything under it as os.RemoveAll does, by
// several workers at once: a run's folder holds tens of thousands of files
// of git repositories, and their removal waits on the disk more than on
// the CPU. 51,200 files in 40 repositories, on a 2-core machine: idle, 0.83
// to 0.90 s alone, 0.65 to 0.82 s by 8; with builds beside it, 1.3 to
// 3.2 s alone, 0.8 to 1.1 s by 8.
// Each entry down to splitDepth levels is a job of its own, each folder
// there a subtree; a symbolic link is removed, never followed.
func RemoveAll(dir string, workers int) error {
	r := &remover{slots: make(chan struct{}, max(workers, 1))}
	r.split(dir, 0)
	r.wg.Wait()
	return errors.Join(append(r.errs, os.RemoveAll(dir))...)
}

// splitDepth is how deep RemoveAll lists folders to make its jobs: deep
// enough to reach each repository of a run's git folders and the
// repo-server's checkouts.
const splitDepth = 3

type remover struct {
	slots chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	errs  []error
}

func (r *remover) split(dir string, depth int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return // the last os.RemoveAll says why, if it matters
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() && depth < splitDepth { // false for a link: Lstat's type
			r.split(p, depth+1)
			continue
		}
		r.slots <- struct{}{}
		r.wg.Go(func() {
			defer func() { <-r.slots }()
			if err := os.RemoveAll(p); err != nil {
				r.mu.Lock()
				r.errs = append(r.errs, err)
				r.mu.Unlock()
			}
		})
	}
}
