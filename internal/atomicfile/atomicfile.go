// Package atomicfile replaces files whole: a reader sees the old content or
// the new, never half of it, and two writers racing on one path (two runs
// filling the same cache) each rename a temporary file of their own. A
// program running from the path keeps its old file (a write in place would
// fail with "text file busy").
package atomicfile

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data, with permissions perm.
func Write(path string, data []byte, perm fs.FileMode) error {
	return replace(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Copy replaces path with a copy of the file src, with permissions perm.
func Copy(src, path string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return replace(path, perm, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}

func replace(path string, perm fs.FileMode, fill func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	err = fill(tmp)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
