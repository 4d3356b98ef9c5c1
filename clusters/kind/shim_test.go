package kind

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestShimScript runs the shim against a stand-in CLI that prints its
// arguments one per line.
func TestShimScript(t *testing.T) {
	dir := t.TempDir()
	echo := filepath.Join(dir, "real-docker")
	if err := os.WriteFile(echo, []byte("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	flags := PrivilegeOf(0x000001fffeffffff, 40).Flags
	shim := filepath.Join(dir, "docker")
	if err := os.WriteFile(shim, []byte(shimScript(echo, flags)), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) []string {
		out, err := exec.Command(shim, args...).Output()
		if err != nil {
			t.Fatalf("shim %v: %v", args, err)
		}
		return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	}
	got := run("run", "--name", "n", "--privileged", "--label", "a b", "img:v1")
	want := append(append([]string{"run", "--name", "n"}, flags...), "--label", "a b", "img:v1")
	if !slices.Equal(got, want) {
		t.Errorf("run: got %q, want %q", got, want)
	}
	if !slices.Contains(flags, "--cap-drop=SYS_RESOURCE") || !slices.Contains(flags, "--device-cgroup-rule=a *:* rwm") {
		t.Errorf("flags %q: want SYS_RESOURCE dropped and every device allowed", flags)
	}
	if got, want := run("exec", "--privileged", "-i", "node", "ctr", "it's"), []string{"exec", "-i", "node", "ctr", "it's"}; !slices.Equal(got, want) {
		t.Errorf("exec: got %q, want %q", got, want)
	}
	if got, want := run("ps", "-a", "--filter", "label=--privileged"), []string{"ps", "-a", "--filter", "label=--privileged"}; !slices.Equal(got, want) {
		t.Errorf("ps: got %q, want %q", got, want)
	}
}
