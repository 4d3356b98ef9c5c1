package files

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCopyAndSHA256(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "a")
	if err := os.WriteFile(src, []byte("abc"), 0o444); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "sub", "b")
	if err := Copy(src, dst, 0o755); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dst); err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("copy: %v %v", fi, err)
	}
	// Over an existing file: replaced whole, with exactly the mode asked.
	if err := os.WriteFile(dst, []byte("old and longer"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Copy(src, dst, 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dst); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("copy over a file: %v %v", fi, err)
	}
	sum, err := SHA256(dst)
	if err != nil || sum != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatalf("sha256: %s %v", sum, err)
	}
	if _, err := SHA256(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("a missing file has a digest")
	}
}

func TestRemoveAll(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	for _, p := range []string{"a/b/c/d.txt", "a/e.txt", "f.txt", "g/h/i.txt", "empty/"} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if filepath.Base(p) != "" && p[len(p)-1] != '/' {
			if err := os.WriteFile(full, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Links to a folder outside, at every depth the removal splits at.
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "keep.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"link", "a/link", "a/b/link", "a/b/c/link"} {
		if err := os.Symlink(outside, filepath.Join(dir, l)); err != nil {
			t.Fatal(err)
		}
	}
	if err := RemoveAll(dir, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("%s still there: %v", dir, err)
	}
	if _, err := os.Stat(filepath.Join(outside, "keep.txt")); err != nil {
		t.Errorf("what a link points to was removed: %v", err)
	}
	if err := RemoveAll(dir, 2); err != nil {
		t.Errorf("removing what is gone: %v", err)
	}
}
