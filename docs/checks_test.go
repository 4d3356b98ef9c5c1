package docs

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "write the generated pages instead of comparing them")

// TestPagesAreCurrent fails when a generated page differs from what the
// code makes of it now; `make docs` (go test ./docs -update) writes them.
func TestPagesAreCurrent(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]func(string) ([]byte, error){"checks.md": ChecksPage, "performance.md": performanceWithRuns}
	for name, page := range pages {
		want, err := page(root)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if *update {
			if err := os.WriteFile(name, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(name)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("docs/%s is stale (or missing: %v): run `make docs` and commit it", name, err)
		}
	}
}

// performanceWithRuns is docs/performance.md as make bench wrote it, with
// its section of clean-clone runs rendered from the record now.
func performanceWithRuns(root string) ([]byte, error) {
	page, err := os.ReadFile(filepath.Join(root, "docs", "performance.md"))
	if err != nil {
		return nil, err
	}
	runs, err := ReadCIRuns(filepath.Join(root, CIRunsFile))
	if err != nil {
		return nil, err
	}
	return WithCIRuns(page, CIRunsSection(runs)), nil
}
