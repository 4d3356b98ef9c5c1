package plugins

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/semver"
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

// goCommand builds a module with the Go its go.mod asks for, chosen as the
// tools' builds choose it, whatever GOTOOLCHAIN the caller has: the local Go
// where it suffices, else the toolchain line's (the harness: go1.27.3).
func TestGoCommandToolchain(t *testing.T) {
	t.Setenv("GOTOOLCHAIN", "local")
	local := goVersion(t, t.TempDir(), "go 1.20\n")
	if semver.Compare("v"+strings.TrimPrefix(local, "go"), "v1.27.3") >= 0 {
		// `go test` puts the Go that runs it first on PATH.
		t.Skipf("the go command on PATH is %s: no older Go to choose against", local)
	}
	if got := goVersion(t, t.TempDir(), "go 1.27.0\n\ntoolchain go1.27.3\n"); got != "go1.27.3" {
		t.Errorf("a module that needs go1.27.3: built by %s (local Go %s)", got, local)
	}
}

// goVersion is the Go that goCommand runs in a module made of gomod.
func goVersion(t *testing.T, dir, gomod string) string {
	t.Helper()
	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/v\n\n"+gomod)
	out, err := goCommand(context.Background(), dir, "env", "GOVERSION").Output()
	if err != nil {
		t.Fatalf("go env GOVERSION in a module of %q: %v", gomod, err)
	}
	return strings.TrimSpace(string(out))
}
