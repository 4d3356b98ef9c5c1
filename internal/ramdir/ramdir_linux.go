package ramdir

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Mount mounts a tmpfs of o.Size on dir, an empty folder, when this
// machine can give it: Linux, root, memory for it, and, when containers
// bind-mount from it, a dockerd that shares this process's mounts (one
// in another mount namespace would bind the empty folder beneath). Where
// it cannot, the folder stays on disk and Result says why: a run is only
// slower on disk.
func Mount(dir string, o Options) Result {
	if os.Geteuid() != 0 {
		return Result{Why: fmt.Sprintf("mounting a tmpfs needs root, this process runs as uid %d", os.Geteuid())}
	}
	// The pod's /dev/shm (podshm) is an idmapped mount of a folder in here:
	// tmpfs takes idmaps since Linux 6.3, ext4 since 5.12.
	if release, ok := kernelAtLeast(6, 3); !ok {
		return Result{Why: fmt.Sprintf("Linux %s cannot idmap a folder of a tmpfs (6.3 and later can), which the plugins' /dev/shm is", release)}
	}
	total, avail, err := memory()
	if err != nil {
		return Result{Why: fmt.Sprintf("the memory of this machine is unknown (%v)", err)}
	}
	if o.Size == 0 {
		o.Size = DefaultSize(total)
	}
	// What is written there is memory: keep room for the components.
	if avail < 2*o.Size {
		return Result{Why: fmt.Sprintf("%s of memory available, less than twice the tmpfs's cap of %s", human(avail), human(o.Size))}
	}
	if o.Containers {
		if why := dockerdSharesMounts(); why != "" {
			return Result{Why: why}
		}
	}
	opts := fmt.Sprintf("size=%d,mode=0700", o.Size)
	if err := unix.Mount("cmpc-work", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		return Result{Why: fmt.Sprintf("mounting a tmpfs on %s: %v", dir, err)}
	}
	return Result{Size: o.Size}
}

// Unmount detaches the tmpfs Mount put on dir, if one is there (nothing
// otherwise). Detached, so that a process still holding a file in it
// (a plugin container being removed) does not keep the folder mounted: its
// memory goes with the last such file.
func Unmount(dir string) error {
	ok, err := mountedTmpfs(dir)
	if err != nil || !ok {
		return err
	}
	if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("unmounting the tmpfs on %s: %w", dir, err)
	}
	return nil
}

// mountedTmpfs says whether dir is itself the root of a tmpfs mount (not a
// folder inside one: /tmp may be a tmpfs the run must not unmount).
func mountedTmpfs(dir string) (bool, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return false, nil
		}
		return false, err
	}
	if st.Type != unix.TMPFS_MAGIC {
		return false, nil
	}
	// A mount point's device differs from its parent's.
	var self, parent unix.Stat_t
	if err := unix.Stat(dir, &self); err != nil {
		return false, err
	}
	if err := unix.Stat(filepath.Dir(filepath.Clean(dir)), &parent); err != nil {
		return false, err
	}
	return self.Dev != parent.Dev, nil
}

// kernelAtLeast says whether the running kernel is major.minor or later,
// and gives its release.
func kernelAtLeast(major, minor int) (string, bool) {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "(unknown)", false
	}
	release := unix.ByteSliceToString(u.Release[:])
	return release, releaseAtLeast(release, major, minor)
}

// releaseAtLeast compares a kernel release ("6.18.44-fc", "5.15.0-91") with
// major.minor.
func releaseAtLeast(release string, major, minor int) bool {
	parts := strings.SplitN(release, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(strings.TrimRightFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

// memory reads MemTotal and MemAvailable, in bytes.
func memory() (total, avail int64, err error) {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, 0, err
	}
	s := bufio.NewScanner(bytes.NewReader(data))
	for s.Scan() {
		name, rest, _ := strings.Cut(s.Text(), ":")
		kb, perr := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		switch name {
		case "MemTotal":
			total, err = kb*1024, perr
		case "MemAvailable":
			avail, err = kb*1024, errors.Join(err, perr)
		}
	}
	if total == 0 || avail == 0 {
		return 0, 0, errors.Join(err, errors.New("no MemTotal or MemAvailable in /proc/meminfo"))
	}
	return total, avail, err
}

// dockerdSharesMounts finds dockerd among this machine's processes and
// compares its mount namespace with this process's; it says why not when
// they differ or dockerd is not here (a remote or rootless engine).
func dockerdSharesMounts() string {
	self, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		return fmt.Sprintf("this process's mount namespace is unknown (%v)", err)
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return fmt.Sprintf("the processes of this machine cannot be listed (%v)", err)
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		comm, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if err != nil || strings.TrimSpace(string(comm)) != "dockerd" {
			continue
		}
		ns, err := os.Readlink(filepath.Join("/proc", e.Name(), "ns", "mnt"))
		if err != nil {
			return fmt.Sprintf("dockerd's mount namespace cannot be read (%v)", err)
		}
		if ns != self {
			return fmt.Sprintf("dockerd (pid %s) is in another mount namespace (%s, this process %s): it would not see the tmpfs", e.Name(), ns, self)
		}
		return ""
	}
	return "no dockerd runs on this machine as seen from here (a remote or rootless engine would not see a tmpfs mounted here)"
}
