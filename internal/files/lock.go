package files

import (
	"fmt"
	"os"
	"syscall"
)

// TryLock takes an exclusive lock on the file at path (made if missing)
// without waiting: the open file holds it until closed, and the kernel
// drops it when the process ends, however it ends. A file another process
// (or another open file of this one) holds, or that cannot be locked,
// gives nil and no error.
func TryLock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, nil // held elsewhere: the callers try another
	}
	return f, nil
}

// Lock takes an exclusive lock on the file at path (made if missing),
// waiting for its holder, and returns what releases it. As with TryLock,
// the kernel drops it when the process ends, however it ends.
func Lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}
