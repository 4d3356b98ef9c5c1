package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// testFile is a test that reads data.txt from its package's folder (as
// tests read testdata) and wants it to say want.
func testFile(name, want string) string {
	return "package " + name + "\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestData(t *testing.T) {\n\tb, err := os.ReadFile(\"data.txt\")\n\tif err != nil || string(b) != \"" + want + "\" {\n\t\tt.Fatalf(\"data.txt: %q %v\", b, err)\n\t}\n}\n"
}

func TestRunLinksOnceAndRunsEveryTime(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "go.mod"), "module example.com/m\n\ngo 1.22\n")
	write(t, filepath.Join(root, "good", "good_test.go"), testFile("good", "fine"))
	write(t, filepath.Join(root, "good", "data.txt"), "fine")
	write(t, filepath.Join(root, "bad", "bad_test.go"), testFile("bad", "fine"))
	write(t, filepath.Join(root, "bad", "data.txt"), "broken")
	write(t, filepath.Join(root, "none", "none.go"), "package none\n")
	t.Chdir(root)
	bins := filepath.Join(t.TempDir(), "bins")

	var out bytes.Buffer
	if code := run([]string{bins}, &out, &out); code != 1 {
		t.Fatalf("exit %d with a failing package, want 1:\n%s", code, &out)
	}
	for _, want := range []string{"ok  \texample.com/m/good", "FAIL\texample.com/m/bad", "data.txt: \"broken\"", "FAIL (1 of 2 packages)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, &out)
		}
	}
	if strings.Contains(out.String(), "none") {
		t.Errorf("a package without tests is reported:\n%s", &out)
	}

	// The data changes, the sources do not: the binary is not linked again,
	// and the test runs again and passes.
	good := filepath.Join(bins, "good.test")
	before, err := os.Stat(good)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "bad", "data.txt"), "fine")
	out.Reset()
	if code := run([]string{bins}, &out, &out); code != 0 {
		t.Fatalf("exit %d with every package passing:\n%s", code, &out)
	}
	// (Go touches an up-to-date binary's time; linking writes a new file.)
	if after, err := os.Stat(good); err != nil || !os.SameFile(before, after) {
		t.Errorf("good.test was written again (%v): its sources had not changed", err)
	}

	// A source changes: its binary is linked again and judges the change.
	write(t, filepath.Join(root, "good", "good_test.go"), testFile("good", "changed"))
	out.Reset()
	if code := run([]string{bins, "./good"}, &out, &out); code != 1 || !strings.Contains(out.String(), "FAIL\texample.com/m/good") {
		t.Errorf("exit %d after good's test changed to fail, want 1 and FAIL:\n%s", code, &out)
	}

	write(t, filepath.Join(root, "bad", "bad_test.go"), "package bad\n\nfunc broken( {\n")
	out.Reset()
	if code := run([]string{bins}, &out, &out); code != 1 || !strings.Contains(out.String(), "linking the test binaries") {
		t.Errorf("exit %d with a package that does not compile, want 1 and the link's error:\n%s", code, &out)
	}
	if code := run(nil, &out, &out); code != 2 {
		t.Errorf("exit %d without a folder, want 2", code)
	}
}
