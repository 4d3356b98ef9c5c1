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

// Copy copies src to dst with mode, creating dst's folder; an existing dst
// is replaced.
func Copy(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Digest accumulates what something is made of, for a short content tag.
type Digest struct{ h hash.Hash }

// NewDigest starts a Digest.
func NewDigest() *Digest { return &Digest{h: sha256.New()} }

func (d *Digest) Write(p []byte) (int, error) { return d.h.Write(p) }

// Short is the first 16 hex digits of the SHA-256 of what was written.
func (d *Digest) Short() string { return hex.EncodeToString(d.h.Sum(nil))[:16] }
