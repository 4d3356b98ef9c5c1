package plugins

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// checkout writes a module with one program per name (main prints body).
func checkout(t *testing.T, programs map[string]string) string {
	t.Helper()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "go.mod"), "module example.com/c\n\ngo 1.22\n")
	for name, body := range programs {
		writeFile(t, filepath.Join(root, "cmd", name, "main.go"), "package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\""+body+"\") }\n")
	}
	return root
}

func runProgram(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.Command(path).Output()
	if err != nil {
		t.Fatalf("running %s: %v", path, err)
	}
	return string(out)
}

// The program cache is shared by every checkout of the machine: each run
// must get its own checkout's programs, as they are now, and nothing else.
func TestBuildPackagesThroughTheProgramCache(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	// A cache of the test's own; Go's build cache stays the machine's (by
	// default it is under XDG_CACHE_HOME, and an empty one recompiles the
	// standard library: 15 s).
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOCACHE", strings.TrimSpace(string(gocache)))
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ctx := context.Background()
	a := checkout(t, map[string]string{"cmp-one": "one from a", "cmp-two": "two from a"})
	b := checkout(t, map[string]string{"cmp-one": "one from b", "cmp-three": "three from b"})

	binA := filepath.Join(t.TempDir(), "bin")
	if err := buildPackages(ctx, a, binA, []string{"./cmd/..."}); err != nil {
		t.Fatal(err)
	}
	binB := filepath.Join(t.TempDir(), "bin")
	if err := buildPackages(ctx, b, binB, []string{"./cmd/..."}); err != nil {
		t.Fatal(err)
	}
	if got := runProgram(t, filepath.Join(binA, "cmp-one")); got != "one from a" {
		t.Errorf("a's cmp-one says %q after b's build: a run's copy changed under it", got)
	}
	if got := runProgram(t, filepath.Join(binB, "cmp-one")); got != "one from b" {
		t.Errorf("b's cmp-one says %q, want b's own program", got)
	}
	if _, err := os.Stat(filepath.Join(binB, "cmp-two")); err == nil {
		t.Error("b's folder holds cmp-two, a program of another checkout")
	}

	// a changes a program: the next run of a gets the change, not the
	// cache's program from b.
	writeFile(t, filepath.Join(a, "cmd", "cmp-one", "main.go"), "package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"one from a, changed\") }\n")
	binA2 := filepath.Join(t.TempDir(), "bin")
	if err := buildPackages(ctx, a, binA2, []string{"./cmd/..."}); err != nil {
		t.Fatal(err)
	}
	if got := runProgram(t, filepath.Join(binA2, "cmp-one")); got != "one from a, changed" {
		t.Errorf("a's changed cmp-one says %q", got)
	}
	if got := runProgram(t, filepath.Join(binA2, "cmp-two")); got != "two from a" {
		t.Errorf("a's cmp-two says %q", got)
	}

	bad := checkout(t, map[string]string{"cmp-bad": "x\" + undefined + \""})
	err = buildPackages(ctx, bad, t.TempDir(), []string{"./cmd/..."})
	if err == nil || !strings.Contains(err.Error(), "undefined") {
		t.Errorf("a program that does not compile: %v, want go's error", err)
	}
}
