//go:build !linux

package privatetmp

import "fmt"

// Start reports that only Linux can give a process a /tmp of its own.
func (t Tmp) Start(start func() error) error {
	return fmt.Errorf("%w: not Linux", ErrUnsupported)
}
