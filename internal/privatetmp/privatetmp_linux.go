package privatetmp

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"

	"golang.org/x/sys/unix"
)

// Start runs start (which starts a process: exec.Cmd.Start) on an OS
// thread of its own, in a mount namespace where /tmp is t: the process
// started inherits that namespace, and its children with it. The thread
// ends with the call (it is never given back to Go's scheduler).
func (t Tmp) Start(start func() error) error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("%w: this process runs as uid %d", ErrUnsupported, os.Geteuid())
	}
	for target := range t.Bind {
		if !under(target) || filepath.Clean(target) == "/tmp" {
			return fmt.Errorf("%s is not a path under /tmp", target)
		}
	}
	errc := make(chan error, 1)
	go func() {
		// Never unlocked: the goroutine's exit ends the thread, and its
		// namespace with it.
		runtime.LockOSThread()
		if err := t.enter(); err != nil {
			errc <- err
			return
		}
		errc <- start()
	}()
	return <-errc
}

// enter gives the calling thread a mount namespace of its own with t at /tmp.
func (t Tmp) enter() error {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("unshare(CLONE_NEWNS): %w", err)
	}
	// Nothing mounted here may reach the host's namespace.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("making / a slave mount: %w", err)
	}
	// Every tree is taken before the tmpfs hides its source.
	mounts := map[string]int{}
	defer func() {
		for _, fd := range mounts {
			unix.Close(fd)
		}
	}()
	take := func(target, source string) error {
		fd, err := unix.OpenTree(unix.AT_FDCWD, source, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err != nil {
			return fmt.Errorf("open_tree %s: %w", source, err)
		}
		mounts[filepath.Clean(target)] = fd
		return nil
	}
	for _, k := range t.Keep {
		if abs, err := filepath.Abs(k); err == nil && under(abs) {
			if err := take(abs, abs); err != nil {
				return err
			}
		}
	}
	for target, source := range t.Bind {
		if err := take(target, source); err != nil {
			return err
		}
	}
	if err := unix.Mount("tmpfs", "/tmp", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil {
		return fmt.Errorf("mounting a tmpfs at /tmp: %w", err)
	}
	// Parents before children: a folder kept inside a bound one stays.
	targets := make([]string, 0, len(mounts))
	for target := range mounts {
		targets = append(targets, target)
	}
	sort.Strings(targets)
	for _, target := range targets {
		if err := os.MkdirAll(target, 0o755); err != nil {
			return fmt.Errorf("making %s in the new /tmp: %w", target, err)
		}
		if err := unix.MoveMount(mounts[target], "", unix.AT_FDCWD, target, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("mounting at %s: %w", target, err)
		}
	}
	return nil
}
