// Package privatetmp starts a host process with a /tmp of its own, as a
// container has: an empty tmpfs, where the folders named stay at their own
// paths and other folders appear at chosen paths under it. argocd-server
// serves UI extensions from the hard-coded /tmp/extensions; here it is a
// host process, and this gives it a run's folder there without touching
// the host's /tmp, which other runs and programs share.
package privatetmp

import (
	"errors"
	"path/filepath"
	"strings"
)

// ErrUnsupported is wrapped by Start where this host cannot give a process
// a /tmp of its own (not Linux, or not root).
var ErrUnsupported = errors.New("a /tmp of its own for a process needs root on Linux")

// Tmp is the /tmp a process gets.
type Tmp struct {
	// Keep are folders that stay visible at their own paths (the run's
	// work folder, which is usually under /tmp).
	Keep []string
	// Bind maps a path under /tmp to a host folder shown there.
	Bind map[string]string
}

// under says whether path is /tmp or below it.
func under(path string) bool {
	p := filepath.Clean(path)
	return p == "/tmp" || strings.HasPrefix(p, "/tmp/")
}
