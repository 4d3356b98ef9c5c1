package plugins

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
	"github.com/cmp-conformance/cmp-conformance/internal/atomicfile"
	"github.com/cmp-conformance/cmp-conformance/internal/files"
)

// A stamp says which sources and settings a folder of the program cache was
// last built from, and which programs that build left there. Go's own check
// that a program is up to date loads every package the programs import
// (thousands: the service bridge links Argo CD's) and took 4.7 CPU seconds
// and 2.8 s per run here, before anything else could start; every run of
// make test paid it, for programs that had not changed. A stamp that
// matches skips the go commands; anything else builds as before.
type stamp struct {
	Key      string          `json:"key"`
	Programs []stampedBinary `json:"programs"`
}

// stampedBinary is a program as the build left it: a file changed or
// removed since (by hand, or a build of other sources) no longer matches.
type stampedBinary struct {
	Name    string    `json:"name"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"modTime"`
}

// sourceKey digests what a build in root of args can depend on: every file
// under root (contents, not times, so a clean clone of the same sources
// matches) but in folders whose names begin with . or _, which the go
// command leaves out of its patterns too (.git, a run's _output, where its
// reports and programs land while it runs), the go commands' environment (GO*
// and CGO_* variables, the toolchain the build runs under and the Go that
// "local" means) and args. More than the build reads (docs, other
// programs' sources): a change there only costs one build, as before.
func sourceKey(root string, env, args []string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, path)
		if !d.Type().IsRegular() {
			if d.Type()&fs.ModeSymlink != 0 {
				target, err := os.Readlink(path)
				if err != nil {
					return err
				}
				io.WriteString(h, "link\x00"+rel+"\x00"+target+"\x00")
			}
			return nil
		}
		sum, err := files.SHA256(path)
		if err != nil {
			return err
		}
		io.WriteString(h, "file\x00"+rel+"\x00"+sum+"\x00")
		return nil
	})
	if err != nil {
		return "", err
	}
	var goEnv []string
	for _, kv := range append(os.Environ(), env...) {
		if strings.HasPrefix(kv, "GO") || strings.HasPrefix(kv, "CGO_") {
			goEnv = append(goEnv, kv)
		}
	}
	slices.Sort(goEnv) // a later duplicate wins in exec; sorting keeps both, in one order
	for _, s := range [][]string{goEnv, {"local=" + toolchain.LocalGo()}, args} {
		io.WriteString(h, strings.Join(s, "\x00")+"\x01")
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// stampPath is where the stamp of the build named by key's purpose lives.
func stampPath(cache, purpose string) string {
	sum := sha256.Sum256([]byte(purpose))
	return filepath.Join(cache, ".stamp-"+hex.EncodeToString(sum[:8])+".json")
}

// stamped returns the programs of the last build with key in cache, if
// each is still as that build left it.
func stamped(cache, path, key string) ([]string, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	var s stamp
	if json.Unmarshal(data, &s) != nil || s.Key != key || len(s.Programs) == 0 {
		return nil, false
	}
	var names []string
	for _, p := range s.Programs {
		fi, err := os.Stat(filepath.Join(cache, p.Name))
		if err != nil || fi.Size() != p.Size || !fi.ModTime().Equal(p.ModTime) {
			return nil, false
		}
		names = append(names, p.Name)
	}
	return names, true
}

// writeStamp records that cache holds names as built from key.
func writeStamp(cache, path, key string, names []string) error {
	s := stamp{Key: key}
	for _, name := range names {
		fi, err := os.Stat(filepath.Join(cache, name))
		if err != nil {
			return err
		}
		s.Programs = append(s.Programs, stampedBinary{Name: name, Size: fi.Size(), ModTime: fi.ModTime()})
	}
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o644)
}
