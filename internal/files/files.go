// Package files holds the file chores of this harness: a content digest and
// a copy into a build context (every image and binary builder), and the
// removal of a run's folder.
package files

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"os"
	"path/filepath"

	"github.com/cmp-conformance/cmp-conformance/internal/atomicfile"
)

// SHA256 is the hex SHA-256 of the file's content.
func SHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Copy copies src to dst with exactly mode, creating dst's folder; an
// existing dst is replaced whole (atomicfile), so a program running from it
// keeps its old file.
func Copy(src, dst string, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return atomicfile.Copy(src, dst, mode)
}

// Digest accumulates what something is made of, for a short content tag.
type Digest struct{ h hash.Hash }

// NewDigest starts a Digest.
func NewDigest() *Digest { return &Digest{h: sha256.New()} }

func (d *Digest) Write(p []byte) (int, error) { return d.h.Write(p) }

// Short is the first 16 hex digits of the SHA-256 of what was written.
func (d *Digest) Short() string { return hex.EncodeToString(d.h.Sum(nil))[:16] }
