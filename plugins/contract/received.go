package contract

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
)

// WorkDirName is the folder argocd-cmp-server unpacks each request under
// ($ARGOCD_CMP_WORKDIR or the temporary folder, then _cmp_server/<uuid>):
// the <uuid> folder is the root of what the repo-server sent, the whole
// repository or, with manifest-generate-paths on, the paths' common root.
const WorkDirName = "_cmp_server"

// maxReceived bounds the list of what was received.
const maxReceived = 2000

// Received is what the plugin was sent: every file and link below the root
// of the archive it was unpacked from, whose folder generate ran in.
type Received struct {
	// AppRelPath is the working directory relative to that root.
	AppRelPath string `json:"appRelPath"`
	// Paths are slash-separated, relative to the root, sorted; folders are
	// implied by what they hold.
	Paths []string `json:"paths"`
	// Error says why the root could not be found or walked.
	Error string `json:"error,omitempty"`
}

// ReceivedFrom lists what reached the plugin whose working directory is dir.
func ReceivedFrom(dir string) Received {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Received{Error: err.Error()}
	}
	root, err := ReceivedRoot(abs)
	if err != nil {
		return Received{Error: err.Error()}
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return Received{Error: err.Error()}
	}
	r := Received{AppRelPath: filepath.ToSlash(rel)}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if len(r.Paths) == maxReceived {
			return errors.New("more than 2000 files received; the list stops there")
		}
		rel, _ := filepath.Rel(root, p)
		r.Paths = append(r.Paths, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		r.Error = err.Error()
	}
	slices.Sort(r.Paths)
	return r
}

// ReceivedRoot walks up from dir to the folder just below WorkDirName: the
// root of what argocd-cmp-server unpacked.
func ReceivedRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for p := abs; ; p = filepath.Dir(p) {
		parent := filepath.Dir(p)
		if filepath.Base(parent) == WorkDirName {
			return p, nil
		}
		if parent == p {
			return "", errors.New("the working directory " + abs + " is not below a " + WorkDirName + " folder: not run by argocd-cmp-server")
		}
	}
}

// Has says whether path (slash-separated, from the root) was received.
func (r Received) Has(path string) bool {
	_, found := slices.BinarySearch(r.Paths, path)
	return found
}
