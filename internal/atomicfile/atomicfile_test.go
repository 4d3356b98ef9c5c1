package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.sh")
	if err := Write(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Writers racing on one path: every rename succeeds, the file holds
	// one writer's content whole, and no temporary file is left.
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- Write(path, []byte(fmt.Sprintf("writer %02d", i)), 0o755)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a racing writer failed: %v", err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) != len("writer 00") {
		t.Errorf("content %q (%v), want one writer's whole", data, err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("mode %v (%v), want 0755", info.Mode(), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the folder holds %d entries, want the file alone", len(entries))
	}
	if err := Write(filepath.Join(dir, "missing", "f"), nil, 0o644); err == nil {
		t.Error("writing into a missing folder succeeded")
	}
}

func TestCopyLeavesTheOldFileToItsReaders(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	if err := os.WriteFile(src, []byte("new program"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, []byte("old program"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A reader of the old file (as a running program holds its file):
	// what it reads must not change under it.
	old, err := os.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if err := Copy(src, dst, 0o755); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(dst); string(data) != "new program" {
		t.Errorf("dst holds %q, want the copy", data)
	}
	if data, _ := io.ReadAll(old); string(data) != "old program" {
		t.Errorf("the old file's reader sees %q, want the old content (written in place?)", data)
	}
	if info, err := os.Stat(dst); err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("mode %v (%v), want 0755", info.Mode(), err)
	}
	if err := Copy(filepath.Join(dir, "missing"), dst, 0o755); err == nil {
		t.Error("copying a missing file succeeded")
	}
}
