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
	sum, err := SHA256(dst)
	if err != nil || sum != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatalf("sha256: %s %v", sum, err)
	}
	if _, err := SHA256(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("a missing file has a digest")
	}
}
