//go:build !linux

package podshm

import "fmt"

// Open reports that only Linux can share a /dev/shm so.
func Open(dir string, uid int) (*Shm, error) {
	return nil, fmt.Errorf("%w: not Linux", ErrUnsupported)
}

// Start is never reached without Open.
func (s *Shm) Start(start func() error) error { return start() }
