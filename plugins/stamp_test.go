package plugins

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func mustKey(t *testing.T, root string, env, args []string) string {
	t.Helper()
	k, err := sourceKey(root, env, args)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// The key follows what a build can depend on, and nothing a clean clone
// of the same sources changes.
func TestSourceKey(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "go.mod"), "module x\n")
	writeFile(t, filepath.Join(root, "cmd", "p", "main.go"), "package main\n")
	base := mustKey(t, root, nil, []string{"./cmd/..."})

	// Times, and what go build never reads from here, leave it.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(root, "go.mod"), later, later); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "_output", "report.json"), "{}")
	writeFile(t, filepath.Join(root, "examples", "e", "_output", "x"), "y")
	writeFile(t, filepath.Join(root, ".git", "HEAD"), "ref")
	writeFile(t, filepath.Join(root, "_envout", "env", "state.json"), "{}")
	if k := mustKey(t, root, nil, []string{"./cmd/..."}); k != base {
		t.Error("the key changed with a file's time or a folder whose name begins with _ or .")
	}

	for name, change := range map[string]func() string{
		"a source's content": func() string {
			writeFile(t, filepath.Join(root, "cmd", "p", "main.go"), "package main // changed\n")
			defer writeFile(t, filepath.Join(root, "cmd", "p", "main.go"), "package main\n")
			return mustKey(t, root, nil, []string{"./cmd/..."})
		},
		"a new file": func() string {
			writeFile(t, filepath.Join(root, "cmd", "p", "extra.go"), "package main\n")
			defer os.Remove(filepath.Join(root, "cmd", "p", "extra.go"))
			return mustKey(t, root, nil, []string{"./cmd/..."})
		},
		"the toolchain": func() string {
			return mustKey(t, root, []string{"GOTOOLCHAIN=go1.27.3+auto"}, []string{"./cmd/..."})
		},
		"a Go setting of the caller": func() string {
			t.Setenv("GOAMD64", "v3")
			return mustKey(t, root, nil, []string{"./cmd/..."})
		},
		"the packages": func() string {
			return mustKey(t, root, nil, []string{"./cmd/p"})
		},
	} {
		if k := change(); k == base {
			t.Errorf("the key did not change with %s", name)
		}
	}
}

// throughCache builds once for the same sources, and again when they
// change or a program in the cache is no longer what the build left.
func TestThroughCacheSkipsAnUnchangedBuild(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "main.go"), "package main\n")
	builds := 0
	build := func(cache string) ([]string, error) {
		builds++
		writeFile(t, filepath.Join(cache, "prog"), "binary")
		return []string{"prog"}, nil
	}
	key := buildKey{src: root, args: []string{"programs", "./..."}}
	run := func(want int, why string) {
		t.Helper()
		dir := t.TempDir()
		if err := throughCache("", dir, key, build); err != nil {
			t.Fatal(err)
		}
		if builds != want {
			t.Errorf("%s: %d builds, want %d", why, builds, want)
		}
		if _, err := os.Stat(filepath.Join(dir, "prog")); err != nil {
			t.Errorf("%s: the program was not copied: %v", why, err)
		}
	}
	run(1, "first")
	run(1, "same sources")
	writeFile(t, filepath.Join(root, "main.go"), "package main // changed\n")
	run(2, "changed sources")
	cache, err := programCache()
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(cache, "prog"), "replaced by something else")
	run(3, "a program changed in the cache")
	if err := os.Remove(filepath.Join(cache, "prog")); err != nil {
		t.Fatal(err)
	}
	run(4, "a program removed from the cache")
	other := key
	other.args = []string{"programs", "./cmd/one"}
	buildOther := func(cache string) ([]string, error) {
		builds++
		writeFile(t, filepath.Join(cache, "prog2"), "another binary")
		return []string{"prog2"}, nil
	}
	if err := throughCache("", t.TempDir(), other, buildOther); err != nil {
		t.Fatal(err)
	}
	if builds != 5 {
		t.Errorf("another set of packages in the same folder: %d builds, want 5", builds)
	}
	run(5, "the first set again, its stamp kept beside the other's")
}
