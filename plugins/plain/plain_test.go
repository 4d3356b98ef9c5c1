package plain

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestGenerateConcatenatesInOrder(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "b.yaml"), []byte("kind: B"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.yml"), []byte("---\nkind: A\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("ignored"), 0o644)
	var out bytes.Buffer
	if err := Generate(dir, &out); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "---\nkind: A\n---\nkind: B\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestGenerateRefusesEmptyOutput(t *testing.T) {
	if err := Generate(t.TempDir(), &bytes.Buffer{}); err == nil {
		t.Fatal("an empty folder must be an error, not an empty manifest list")
	}
}
