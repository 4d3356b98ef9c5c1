package podshm

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// Open prepares dir (created, owned by uid, mode 1777 as a pod's /dev/shm)
// and proves the mount on it: a file written through it as root must belong
// to uid on disk. On failure nothing is left but the folder.
func Open(dir string, uid int) (*Shm, error) {
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("%w: this process runs as uid %d", ErrUnsupported, os.Geteuid())
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// Through the idmapped mount the folder's owner uid appears as root:
	// the repo-server writes there as the owner, as in a pod.
	if err := os.Chown(dir, uid, uid); err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o1777); err != nil {
		return nil, err
	}
	s := &Shm{Dir: dir, UID: uid}
	if err := s.probe(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	return s, nil
}

// probe writes a file through the mount, as a process Start started would,
// and checks who owns it on disk.
func (s *Shm) probe() error {
	name := fmt.Sprintf("cmpc-probe-%d", os.Getpid())
	err := s.Start(func() error {
		return os.WriteFile(filepath.Join("/dev/shm", name), nil, 0o600)
	})
	if err != nil {
		return err
	}
	path := filepath.Join(s.Dir, name)
	defer os.Remove(path)
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("the probe file is not in %s: %w", s.Dir, err)
	}
	if uid := st.Sys().(*syscall.Stat_t).Uid; int(uid) != s.UID {
		return fmt.Errorf("the probe file belongs to uid %d on disk, want %d", uid, s.UID)
	}
	return nil
}

// Start runs start (which starts a process: exec.Cmd.Start) on an OS
// thread of its own, in a mount namespace where Dir is mounted at /dev/shm:
// the process started inherits that namespace, and its children with it.
// The thread ends with the call (it is never given back to Go's scheduler).
func (s *Shm) Start(start func() error) error {
	errc := make(chan error, 1)
	go func() {
		// Never unlocked: the goroutine's exit ends the thread, and its
		// namespace with it.
		runtime.LockOSThread()
		if err := s.enter(); err != nil {
			errc <- err
			return
		}
		errc <- start()
	}()
	return <-errc
}

// enter gives the calling thread a mount namespace of its own, with Dir
// idmapped over /dev/shm.
func (s *Shm) enter() error {
	userns, err := usernsFD(s.UID)
	if err != nil {
		return fmt.Errorf("a user namespace for the idmap: %w", err)
	}
	defer unix.Close(userns)
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("unshare(CLONE_NEWNS): %w", err)
	}
	// Nothing mounted here may reach the host's namespace.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("making / a slave mount: %w", err)
	}
	tree, err := unix.OpenTree(unix.AT_FDCWD, s.Dir, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return fmt.Errorf("open_tree %s: %w", s.Dir, err)
	}
	defer unix.Close(tree)
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_IDMAP, Userns_fd: uint64(userns)}
	if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH, &attr); err != nil {
		return fmt.Errorf("idmapping %s: %w", s.Dir, err)
	}
	if err := unix.MoveMount(tree, "", unix.AT_FDCWD, "/dev/shm", unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("mounting %s at /dev/shm: %w", s.Dir, err)
	}
	return nil
}

// usernsFD opens a user namespace in which uid stands for this process's
// root (the idmap: what root writes through the mount belongs to uid on
// disk). The namespace lives as long as the descriptor; the process that
// made it (cat, waiting on its input) ends at once.
func usernsFD(uid int) (int, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return -1, err
	}
	defer r.Close()
	cat, err := exec.LookPath("cat")
	if err != nil {
		w.Close()
		return -1, err
	}
	cmd := exec.Command(cat)
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: 0, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: 0, Size: 1}}}
	if err := cmd.Start(); err != nil {
		w.Close()
		return -1, err
	}
	fd, openErr := unix.Open(fmt.Sprintf("/proc/%d/ns/user", cmd.Process.Pid), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	w.Close()
	waitErr := cmd.Wait()
	if openErr != nil {
		return -1, errors.Join(openErr, waitErr)
	}
	return fd, nil
}
