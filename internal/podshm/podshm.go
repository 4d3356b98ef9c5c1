// Package podshm gives host processes, and the containers beside them, one
// /dev/shm, as a pod's containers share the pod's. Argo CD's repo-server
// writes a repository's SSH key to /dev/shm (gitops-engine's io.TempDir,
// fixed at start) and names it in GIT_SSH_COMMAND for a plugin that asks
// for credentials; in a pod every container sees that file, and all run as
// uid 999. Here the repo-server is a host process: it is started in a mount
// namespace of its own where a run folder is mounted over /dev/shm, and the
// plugins' containers get the same folder at /dev/shm. The mount is
// idmapped (Linux 5.12+, root), so what the repo-server writes there as
// this host's root belongs on disk to uid 999, as the sidecars run: the key
// file stays mode 0600 and readable by them, as in a pod, and the host's
// own /dev/shm is neither used nor shown.
package podshm

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrUnsupported is wrapped by Open where this host cannot share a /dev/shm
// (not Linux, not root, or no idmapped mounts): the caller keeps the host's
// /dev/shm and says what a sidecar cannot read.
var ErrUnsupported = errors.New("a /dev/shm shared with containers needs root on Linux with idmapped mounts")

// Shm is a folder that stands for a pod's /dev/shm.
type Shm struct {
	// Dir is the folder: mounted at /dev/shm of the processes Start starts,
	// and to be mounted at /dev/shm of the containers beside them.
	Dir string
	// UID owns, on disk, what the processes write there.
	UID int
}

// MkdirTemp makes a run's work folder (os.MkdirTemp) under TempDir, and
// passes note TempDir's reason when it is not under os.TempDir.
func MkdirTemp(prefix string, note func(string)) (string, error) {
	tmp, why := TempDir()
	if why != "" {
		note(why)
	}
	return os.MkdirTemp(tmp, prefix)
}

// TempDir is where a run's work folder goes: os.TempDir, unless that is
// under /dev/shm (TMPDIR=/dev/shm/...), where the folder mounted over
// /dev/shm in Start's namespace would hide the work folder itself from the
// processes started there (their working directory included: fork/exec
// fails with "no such file or directory"); then /tmp. The second result
// says why, when /tmp was chosen.
func TempDir() (dir, note string) {
	dir = os.TempDir()
	if abs, err := filepath.Abs(dir); err == nil && (abs == "/dev/shm" || strings.HasPrefix(abs, "/dev/shm/")) {
		return "/tmp", fmt.Sprintf("TMPDIR %s is under /dev/shm, which the plugins' pod /dev/shm is mounted over: the work folder is under /tmp instead", dir)
	}
	return dir, ""
}
