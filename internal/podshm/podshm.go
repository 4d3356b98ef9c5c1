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

import "errors"

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
