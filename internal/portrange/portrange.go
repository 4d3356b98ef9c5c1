// Package portrange claims a range of 127.0.0.1 ports for one run, so that
// runs started side by side on one machine (go test ./... runs packages in
// parallel, each certifying its plugin) each take ranges of their own
// instead of failing on the first one's ports.
package portrange

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/cmp-conformance/cmp-conformance/internal/files"
	"github.com/cmp-conformance/cmp-conformance/internal/proc"
)

// Claim is a range of ports held by this process until Release.
type Claim struct {
	// Base is the first port of the range.
	Base int
	lock *os.File
}

// Release lets another run take the range.
func (c *Claim) Release() error {
	if c == nil || c.lock == nil {
		return nil
	}
	err := c.lock.Close() // closing the file drops its lock
	c.lock = nil
	return err
}

// Take claims the first of n ranges (first, first+step, ...) of span ports
// that no other process holds and whose ports are free now. A range is held
// by an exclusive lock on a file of dir (one per base), which the kernel
// drops when the process ends, however it ends: a crashed run frees its range.
func Take(dir string, first, span, step, n int) (*Claim, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("claiming ports: %w", err)
	}
	var why error // why the first range was not taken
	for i := range n {
		base := first + i*step
		if base+span-1 > 65535 {
			break
		}
		f, err := files.TryLock(filepath.Join(dir, strconv.Itoa(base)+".lock"))
		if err != nil {
			return nil, fmt.Errorf("claiming ports: %w", err)
		}
		if f == nil {
			why = cmp.Or(why, fmt.Errorf("ports %d..%d are held by another run", base, base+span-1))
			continue
		}
		addrs := map[string]string{}
		for p := base; p < base+span; p++ {
			addrs[strconv.Itoa(p)] = fmt.Sprintf("127.0.0.1:%d", p)
		}
		if err := proc.CheckPortsFree(addrs); err != nil {
			f.Close()
			why = cmp.Or(why, err)
			continue
		}
		return &Claim{Base: base, lock: f}, nil
	}
	return nil, fmt.Errorf("no free range of %d ports from %d (%d ranges tried, %d apart; the first: %w): end the other runs, or give a base (PortBase)", span, first, n, step, why)
}
